"""The prose read clause by clause for what an instruction *does*, in any of the lexicon's
languages: an act (send, ask, read, hide, set aside), its object (a secret, instructions,
another server's tools) and its manner or destination (silently, to a host outside the
machine, for every tool of any server).

Four kinds of instruction block:

- ``instructions.secret-exfiltration``: a secret and a send in one sentence with a
  destination outside the machine there or in the next sentence; or a secret asked of the
  user or read from the machine, and the file sends something outside;
- ``instructions.concealment``: acting out of the user's sight (silently, "do not tell the
  user") while moving data (send, upload, copy, delete) in that sentence or the one before;
  or a lie prepared for the user's question ("if asked, say no");
- ``instructions.tool-shadowing``: a rule for every tool, any server's tools or the
  built-in tools that changes what they do (a recipient added, the tool replaced, every
  argument passed on);
- ``instructions.override``: a verb setting instructions aside, the instructions, and their
  being earlier or the system's, in one clause; or those instructions declared void.

What a sentence only names is not said: a phrase in quotes, a sentence that warns or
detects ("attackers write …", "flag phrases such as …"), a clause under a negator ("never
send the token anywhere") is no finding. The text is read folded (:mod:`.fold`), and base64
in prose is read as what it decodes to.
"""

from __future__ import annotations

import functools
import re

from lemon_plugins.auditors.instructions import fold as folding
from lemon_plugins.auditors.instructions.lexicon import ASK, READ, SECRET, SEND
from lemon_plugins.auditors.instructions.lexicon_acts import ACTS

from lemon_core.auditor_kit import Line, host_class, names_host, split_url, urls
from lemon_core.auditor_kit.lines import lower_same_length, register_words

CONCEPTS: dict[str, tuple[str, ...]] = {"secret": SECRET, "send": SEND, "ask": ASK,
                                        "read": READ, **ACTS}
#: (rule, severity, message, line, start, end)
Raw = tuple[str, str, str, Line, int, int | None]


class Hit:
    """One phrase of a concept found in a sentence (the shape of a regex match)."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, start: int, end: int, text: str) -> None:
        self._start, self._end, self._text = start, end, text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end

    def group(self) -> str:
        return self._text


#: (concept, phrase length, must end a word, must start a word) for each folded phrase.
Entry = tuple[str, int, bool, bool]


@functools.lru_cache(maxsize=1)
def _phrases() -> dict[str, tuple[Entry, ...]]:
    """Every folded phrase (one space between words) and the concepts it is a word of."""
    table: dict[str, list[Entry]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            whole = phrase.endswith(("=", " "))
            key = " ".join(folding.fold_phrase(phrase.rstrip("= ")).split())
            first = key[:1]
            starts = first.isalpha() and ("a" <= first <= "z" or "\u00c0" <= first <= "\u04ff")
            entry = (concept, len(key), whole, starts)
            if entry not in table.setdefault(key, []):
                table[key].append(entry)
    return {key: tuple(entries) for key, entries in table.items()}


@functools.lru_cache(maxsize=1)
def _automaton() -> object:
    import ahocorasick

    automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY)
    for key, entries in _phrases().items():
        automaton.add_word(key, entries)
    automaton.make_automaton()
    return automaton


def find_all(text: str) -> dict[str, list[Hit]]:
    """Every concept's phrases in ``text`` (white space already single, any case): one
    pass of an automaton over the text, whatever the number of phrases and languages."""
    lower = lower_same_length(text)
    out: dict[str, list[Hit]] = {}
    size = len(lower)
    for last, entries in _automaton().iter(lower):  # type: ignore[attr-defined]
        for concept, length, whole, starts in entries:
            begin = last - length + 1
            if starts and begin > 0 and lower[begin - 1].isalnum() and \
                    (lower[begin - 1] < "\u3000"):  # a CJK or Thai letter before is a boundary
                continue
            if whole and last + 1 < size and lower[last + 1].isalnum():
                continue
            out.setdefault(concept, []).append(Hit(begin, last + 1, text[begin:last + 1]))
    return out


#: The concepts whose words choose the paragraphs worth reading (the others are only
#: looked for in those paragraphs).
PREFILTER = ("manner", "silent", "asked", "deny", "scope", "builtin", "effect", "void",
             "ignore", "instructions", "send", "action", "ask", "secret")


def _stem(phrase: str) -> str:
    """What the shared word search looks for to find ``phrase``: a short phrase whole
    (folded, single-spaced; a short whole word with the space before it: ``" pin"``, not
    every "ping"), a long one by its longest word (a long phrase may wrap onto the next
    line)."""
    key = " ".join(folding.fold_phrase(phrase.rstrip("= ")).split())
    if len(key) > 16:
        return max(key.split(), key=len)
    return " " + key if phrase.endswith(("=", " ")) and len(key) <= 4 else key


@functools.lru_cache(maxsize=1)
def stems() -> dict[str, frozenset[str]]:
    """For each concept of :data:`PREFILTER`, its phrases as the shared word search finds
    them: the lines holding them are the lines worth reading (a phrase broken by more than
    one space is read when another line of its paragraph is)."""
    return {name: frozenset(_stem(phrase) for phrase in CONCEPTS[name]) for name in PREFILTER}


@functools.lru_cache(maxsize=1)
def _all_stems() -> frozenset[str]:
    return frozenset(stem for group in stems().values() for stem in group)


register_words(_all_stems())

#: Sentence ends: punctuation then space, CJK full stops, or a line that starts a list item.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|[。！？；।॥۔؟|]|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n\s*\n")
_CLAUSE_END = re.compile(r"[.;:!?,،，、。；：！？।॥۔؟\n]|\s[-–—]\s")
_QUOTES = re.compile(r"\"[^\"\n]{1,120}\"|“[^”\n]{1,120}”|«[^»\n]{1,120}»|„[^“”\n]{1,120}[“”]|"
                     r"「[^」\n]{1,120}」|『[^』\n]{1,120}』|‘[^’\n]{1,120}’")
_EMAIL = re.compile(r"\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)\b")
#: Messaging services an attacker reads, and the words that name a secret of their own
#: (a bot token sent to Telegram's bot API is Telegram used; a cookie sent there is a leak).
_SINKS = {"api.telegram.org": ("telegram", "bot"), "/api/webhooks": ("discord", "webhook"),
          "hooks.slack.com": ("slack", "webhook"), "pastebin.com": ("pastebin",),
          "paste.ee": ("paste",), "transfer.sh": ("transfer",),
          # forms, gists and request bins anyone may create: whoever made one reads it
          "docs.google.com/forms": (), "forms.gle": (), "gist.github.com": (),
          "webhook.site": (), "requestbin": (), "pipedream.net": ()}
_TRIGGERS = ("silent", "asked", "scope", "ignore", "void")
_QUOTED_CONTEXTS = frozenset({"prose", "heading", "quote", "table"})
_SKIP_CONTEXTS = frozenset({"fence"})


_SPACES = re.compile(r"\s+")


class _Sentence:
    __slots__ = ("end", "found", "start", "text")

    def __init__(self, text: str, start: int) -> None:
        self.start, self.end = start, start + len(text)
        self.text = _SPACES.sub(" ", text) if "  " in text or "\n" in text or "\t" in text \
            else text
        self.found: dict[str, list[Hit]] | None = None

    def get(self, concept: str) -> list[Hit]:
        if self.found is None:
            self.found = find_all(self.text)
        return self.found.get(concept, [])


def _clause(text: str, at: int) -> tuple[int, int]:
    begin = 0
    for end in _CLAUSE_END.finditer(text, 0, at):
        begin = end.end()
    stop = _CLAUSE_END.search(text, at)
    return begin, stop.start() if stop else len(text)


def _negated(sentence: _Sentence, match: Hit) -> bool:
    """Whether a negator stands in the clause of ``match`` (and does not overlap it: the
    "not" of "must not let the user know" is the phrase's own)."""
    begin, end = _clause(sentence.text, match.start())
    return any(begin <= neg.start() < end and
               not (neg.end() > match.start() and neg.start() < match.end())
               for neg in sentence.get("negation"))


def _mentioned(sentence: _Sentence, match: Hit, context: str) -> bool:
    """Whether ``match`` is named rather than said: quoted, or in a warning sentence."""
    if sentence.get("warning"):
        return True
    return context in _QUOTED_CONTEXTS and any(
        quote.start() <= match.start() and match.end() <= quote.end()
        for quote in _QUOTES.finditer(sentence.text))


def destinations(text: str) -> list[str]:
    """The URLs and e-mail addresses of ``text`` (placeholders of example.com left out)."""
    found = [url for _, _, url in urls(text)]
    found += [m.group() for m in _EMAIL.finditer(text)
              if not m.group(1).lower().endswith(("example.com", "example.org"))]
    return found


#: A host written as a placeholder for the reader's own ("your-server.com", "target.com").
_PLACEHOLDER = re.compile(r"your|<|\{|\[|target\.com|\bmy-?(?:server|site|domain|host)", re.IGNORECASE)


def leaves(where: str, secret_words: str) -> bool:
    """Whether a secret named by ``secret_words`` sent to ``where`` leaves the machine for
    someone else: an unknown host or a collector, or a messaging service, unless the words
    name the host (a GitHub token to api.github.com)."""
    url = where if "://" in where else "mailto://" + where
    kind, host = host_class(url), split_url(url)[0]
    if _PLACEHOLDER.search(host):
        return False
    lower, words = where.lower(), secret_words.lower()
    sink = next((names for marker, names in _SINKS.items() if marker in lower), None)
    if sink is not None and (kind == "api" or not sink):
        return not any(name in words for name in sink)
    return kind in ("unknown", "collector") and "." in host and \
        not names_host(re.sub(r"[^\w]+", "_", secret_words), where.split("@")[-1])


def _outside(text: str, secret_words: str) -> list[str]:
    """The destinations in ``text`` a secret would leave the machine for."""
    return [where for where in destinations(text) if leaves(where, secret_words)]


def _sentences(text: str) -> list[_Sentence]:
    out, begin = [], 0
    for end in _SENTENCE_END.finditer(text):
        if text[begin:end.start()].strip():
            out.append(_Sentence(text[begin:end.start()], begin))
        begin = end.end()
    if text[begin:].strip():
        out.append(_Sentence(text[begin:], begin))
    return out
