"""What a skill's prose asks the agent to do, in several languages: the concepts (a secret, asking
the user, collecting, sending, hiding from the user, an override claim, another server's tools
changed for every task) and how they combine into a finding.

Concepts are matched per line on the text an agent reads as instructions (prose, lists, quotes,
tables, HTML comments, frontmatter, data files; a fenced example or a script's code counts one
step lower; a "never do this" section not at all: :mod:`lemon_plugins.auditors.instructions`
weighs them). One concept alone is at most a warning; the combination blocks:

- ``instructions.secret-exfiltration``: a secret asked of the user or collected from the
  machine, and, in the same file, a send to a destination outside the machine that the
  secret's own name does not name (a GitHub token sent to api.github.com is GitHub used);
- ``instructions.secret-request``: a secret asked of the user, nothing sent out (warn);
- ``instructions.concealment``: hiding a step from the user together with an action (send,
  upload, run, delete, copy), or in a file that also sends data out;
- ``instructions.tool-shadowing``: rules for another server's tools that hold for every task
  while the skill is installed, or a call that also sends, copies or adds someone;
- ``instructions.override``: the system or previous instructions declared void, or the file
  declared the highest authority.

Languages: English, Spanish, French, German, Portuguese, Italian, Dutch, Polish, Indonesian, Russian,
Chinese, Japanese, Korean (the words, not a translation service: an unlisted language is not
read).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence

from lemon_plugins.auditors.instructions.intent_words import (
    _CODE_SPAN,
    _EMAIL,
    _LIST_START,
    _LONG_LINE,
    _NEGATED_BEFORE,
    _REACH,
    _READ,
    _SEND_STEMS,
    _SENTENCE_END,
    ACTION,
    ASK_USER,
    COLLECT,
    COLLECT_STEMS,
    HIDE,
    NET_COMMAND,
    OVERRIDE_CLAIM,
    OVERRIDE_SUBJECT,
    OVERRIDE_VOID,
    SECRET,
    SECRET_STEMS,
    SEND,
    SERVER_REF,
    SHADOW_CALL,
    SHADOW_EFFECT,
    SHADOW_HEAD,
    SHADOW_SCOPE,
    STEMS,
    TOOL_REF,
    TRACES,
    I,
    Raw,
)

from lemon_core.auditor_kit import Line, host_class, names_host, split_url, urls
from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import (
    indexed,
    lower_same_length,
    register_words,
    word_lines,
)


def _window(lines: Sequence[Line], index: int, span: int = 6) -> str:
    """The line at ``index`` and the list items or lines that follow it in the same block
    (up to ``span`` lines, to a blank line after a non-list line or a heading)."""
    out = [lines[index].text]
    blank = False
    for line in lines[index + 1:index + 1 + span]:
        if line.context == "heading" or (blank and not line.text.strip()):
            break
        blank = not line.text.strip()
        if blank and not out[-1].rstrip().endswith((":", "：")):
            break  # a paragraph ends at a blank line, unless it leads into a list
        out.append(line.text)
    return "\n".join(out)


#: The word e-mail as a noun ("your email: a@b.c"): no send by itself.
_EMAIL_WORD = lazy_compile(r"\be-?mails?\b|\bmail\b", I)
#: A command that sends data, not only fetches (curl -d, --upload-file, POST, json=).
_SENDS_DATA = lazy_compile(r"\s(?:-d|--data[\w-]*|-F|--form|-T|--upload-file|--post-data|--json)\b|"
                           r"-X\s*(?:POST|PUT|PATCH)\b|\.(?:post|put|patch)\s*\(|\b(?:json|data|"
                           r"files)\s*=|-Method\s+(?:Post|Put)|-Body\b", I)


def _sends(lines: Sequence[Line]) -> list[tuple[Line, list[tuple[str, str]]]]:
    """Each line naming a destination (a URL, an e-mail address) that something is sent to:
    a send verb on the same line ("send it to https://…", "e-mail it to a@b.c"), or a command
    that sends data (``curl -d … https://…``), on its own or led by a send verb in the prose
    just before its fence ("register the values with the service:" and a fenced ``curl``)."""
    out = []
    outside: dict[str, list[tuple[str, str]]] = {}  # by line text: boilerplate repeats
    for index, line in enumerate(lines):
        if ("://" not in line.text and "@" not in line.text) or line.context not in _READ \
                or line.warned:
            continue
        dests = outside.get(line.text)
        if dests is None:  # loopback, APIs, docs: no leak
            dests = outside[line.text] = [dest for dest in _destinations(line.text)
                                          if _outside([dest], "")]
        if not dests:
            continue
        words = _CODE_SPAN.sub(" ", line.text)
        urls_only = [(kind, where) for kind, where in dests if "://" in where]
        before = lines[index - 1] if index and line.context in ("prose", "quote") else None
        if before is not None and before.context == line.context and before.text.strip() and \
                not before.text.rstrip().endswith((".", "!", "?", "。")):
            words = _CODE_SPAN.sub(" ", before.text) + " " + words  # "send it all to\n`https://…`"
        if urls_only and _near(SEND, words, "send") is not None:
            out.append((line, urls_only))
        if len(urls_only) < len(dests) and line.context in ("prose", "quote", "table") and \
                SEND.search(_EMAIL_WORD.sub(" ", _EMAIL.sub(" ", words))):
            out.append((line, [d for d in dests if "://" not in d[1]]))  # "send it to a@b.c"
        if urls_only and _near(SEND, words, "send") is not None:
            continue
        dests = [(kind, where) for kind, where in dests if "://" in where]  # an address: said
        if not dests or line.context not in ("fence", "code"):
            continue
        command = "\n".join(other.text for other in lines[max(0, index - 3):index + 2]
                            if other.context == line.context)
        if not NET_COMMAND.search(command):
            continue
        lead = [other for other in lines[max(0, index - 8):index]
                if other.context in ("prose", "quote") and not other.warned]
        if _SENDS_DATA.search(command) or any(
                SEND.search(_CODE_SPAN.sub(" ", other.text)) for other in lead[-2:]):
            out.append((line, dests))
    return out




def _near(pattern: re.Pattern[str], text: str, concept: str) -> re.Match[str] | None:
    """``pattern.search(text)``, on a long line only around the words of ``concept``."""
    if len(text) <= _LONG_LINE:
        return pattern.search(text)
    lower = lower_same_length(text)
    stems = STEMS.get(concept) or _SEND_STEMS
    places = sorted(at for stem in stems for at in _occurrences(lower, stem))
    end = -1
    for at in places:
        if at < end:
            continue
        begin, end = max(0, at - _REACH), min(len(text), at + _REACH)
        found = pattern.search(text, begin, end)
        if found is not None:
            return found
    return None


def _occurrences(lower: str, stem: str, limit: int = 200) -> Iterator[int]:
    at = lower.find(stem)
    count = 0
    while at != -1 and count < limit:
        yield at
        count += 1
        at = lower.find(stem, at + 1)


def _secret_in(window: str) -> re.Match[str] | None:
    window = window[:_LONG_LINE * 2]  # the paragraph or list that follows a request
    lower = window.lower()
    if not any(stem in lower for stem in SECRET_STEMS):
        return None
    return SECRET.search(window)


def _asked(lines: Sequence[Line], index: int, two: str, verb: re.Match[str]) -> str:
    """What a request or a collection is about: the words after its verb in the same
    sentence, and — when its paragraph leads into a list (ends with a colon) — that list."""
    sentence = re.split(r"(?<=[.!?。])\s", two[verb.start():verb.start() + 200], maxsplit=1)[0]
    spans = " ".join(_CODE_SPAN.findall(lines[index].text))  # `cat ~/.config/gh/hosts.yml`
    if spans:
        sentence += " " + spans
    window = _window(lines, index)
    paragraph, _, rest = window.partition("\n\n")
    if rest and paragraph.rstrip().endswith((":", "：")):
        return sentence + "\n" + rest
    return sentence


def _named(text: str, secret: re.Match[str]) -> str:
    """The secret with the two words before it ("GitHub personal access token"): what it is
    a secret for."""
    before = re.split(r"[\n.,;:(]", text[max(0, secret.start() - 60):secret.start()])[-1]
    return " ".join([*before.split()[-2:], secret.group()])


def _section_text(lines: Sequence[Line], index: int, after: int = 6) -> str:
    """The heading a line stands under, the line, and the next ``after`` lines of its section
    (blank lines skipped): what a rule stated there is about."""
    heading = next((lines[at].text for at in range(index - 1, max(-1, index - 40), -1)
                    if lines[at].context == "heading"), "")
    out = [heading, lines[index].text]
    for line in lines[index + 1:index + 1 + after]:
        if line.context == "heading":
            break
        out.append(line.text)
    return "\n".join(out)


def _destinations(text: str) -> list[tuple[str, str]]:
    found = [(host_class(url), url) for _, _, url in urls(text)]
    found += [(host_class(match.group(1)), match.group()) for match in _EMAIL.finditer(text)
              if not match.group(1).lower().endswith(("example.com", "example.org"))]
    return found


def _outside(dests: list[tuple[str, str]], secret_words: str) -> list[str]:
    """The destinations a secret would leave the machine for: neither loopback nor a known
    API, nor a host the secret's own words name (a GitHub token to api.github.com)."""
    words = re.sub(r"[^\w]+", "_", secret_words)
    return [where for kind, where in dests if kind in ("unknown", "collector")
            and "." in split_url(where if "://" in where else "mailto://" + where)[0]
            and not names_host(words, where.split("@")[-1])]




def _override_sentence(lines: Sequence[Line], index: int, at: int) -> re.Match[str] | None:
    """The void-word of the sentence that the override subject at ``at`` on line ``index``
    stands in (a sentence may run over three lines)."""
    line = lines[index].text
    following = " ".join(other.text for other in lines[index + 1:index + 3]
                         if other.context == lines[index].context)
    text = line + " " + following
    begin = 0
    for end in _SENTENCE_END.finditer(text, 0, at):
        begin = end.end()
    stop = _SENTENCE_END.search(text, at)
    return OVERRIDE_VOID.search(text, begin, stop.start() if stop else len(text))



@functools.lru_cache(maxsize=1)
def all_stems() -> frozenset[str]:
    """Every stem, in any script: searched with the other auditors' words, once per text (the
    shared search is one pass of an automaton over the text, whatever the number of words:
    the stems in Cyrillic, CJK or accented Latin cost a text nothing more, where one
    substring search each cost every text that is not all ASCII — two in three — a pass of
    its own per stem)."""
    return frozenset(stem for stems in STEMS.values() for stem in stems)


register_words(all_stems())  # searched with the other auditors' words, once per text


def concept_lines(text: str) -> dict[str, set[int]]:
    """For each concept, the 0-based indexes of the lines of ``text`` holding one of its
    stems."""
    index, lower = indexed(text)
    out: dict[str, set[int]] = {name: set() for name in STEMS}
    concepts = _concepts_of()
    for stem, held in word_lines(index, lower, all_stems()).items():
        names = concepts[stem]
        shifted = {number - 1 for number in held}
        for name in names:
            out[name] |= shifted
    return out


@functools.lru_cache(maxsize=1)
def _concepts_of() -> dict[str, tuple[str, ...]]:
    """The concepts each stem is a word of."""
    found: dict[str, list[str]] = {}
    for name, stems in STEMS.items():
        for stem in stems:
            found.setdefault(stem, []).append(name)
    return {stem: tuple(names) for stem, names in found.items()}


def judge_text(lines: Sequence[Line], text: str) -> Iterator[Raw]:
    """:func:`judge` on the lines of ``text`` where a concept's words stand."""
    hits = concept_lines(text)
    collects = ("://" in text or "@" in text) and _collects(text)
    if any(hits.values()) or collects:
        yield from judge(lines, hits, collects)


def _holds_collect_stem(lower: str) -> bool:
    return any(stem in lower for stem in COLLECT_STEMS)


def _collects(text: str) -> bool:
    """Whether ``text`` holds a word of collecting (searched only where a send may go out)."""
    return _holds_collect_stem(indexed(text)[1])


def judge(lines: Sequence[Line], hits: dict[str, set[int]] | None = None,
          collects: bool = True) -> Iterator[Raw]:
    """The findings of one file's lines (see the module docstring); ``hits`` the lines
    worth trying for each concept (:func:`concept_lines`; every line when None)."""

    def has(concept: str, at: int, reach: int = 0) -> bool:
        if hits is None:
            return True
        held = hits[concept]
        return at in held or (reach > 0 and at + 1 in held)

    # lines naming an outside destination a send leads to; looked for at once only when the
    # file has words of collecting, else after the lines, when a request or a hiding needs them
    sends = _sends(lines) if collects else None
    collecting = bool(sends)
    if hits is None or collecting:
        wanted = None
    else:
        wanted = set().union(*hits.values(), {at - 1 for at in hits["ask"]})
    asks: list[tuple[Line, re.Match[str], str]] = []  # (line, secret, the words around it)
    collects: list[tuple[Line, re.Match[str], str]] = []
    hides: list[tuple[Line, re.Match[str], bool]] = []
    seen: set[tuple[str, str, str]] = set()
    for index in sorted(wanted) if wanted is not None else range(len(lines)):
        if index >= len(lines):
            continue
        line = lines[index]
        if line.context not in _READ or line.warned:
            continue
        text = line.text
        key = (text, lines[index + 1].text if index + 1 < len(lines) else "", line.context)
        if key in seen:
            continue  # a repeated line (boilerplate) says what its first copy said
        seen.add(key)
        words = _CODE_SPAN.sub(" ", text)
        claim = _near(OVERRIDE_CLAIM, words, "override") if has("override", index) else None
        subject = None if claim or not has("override", index) else _near(OVERRIDE_SUBJECT, words, "override")
        if subject is not None and _override_sentence(lines, index, subject.start()):
            claim = subject
        if claim:
            yield ("instructions.override", "block",
                   ("declares the system or previous instructions void, or this file the "
                   "highest authority"), line, claim.start(), claim.end())
        following = lines[index + 1] if index + 1 < len(lines) else None
        if following is not None and following.context == line.context and \
                following.text.strip() and not _LIST_START.match(following.text) and \
                not text.rstrip().endswith((".", "!", "?", "。", ":")):
            two = words + " " + _CODE_SPAN.sub(" ", following.text)  # a phrase over a line end
        else:
            two = words
        ask = _near(ASK_USER, two, "ask") if has("ask", index, 1) else None
        if ask and _NEGATED_BEFORE.search(two, max(0, ask.start() - 24), ask.start()):
            ask = None  # "never ask the user to paste a password": the rule, not the request
        if ask:
            window = _asked(lines, index, two, ask)
            secret = _secret_in(window)
            if secret:
                asks.append((line, secret, _named(window, secret)))
        collect = None
        if collecting and _holds_collect_stem(two.lower()):  # lowered once, not per stem
            collect = _near(COLLECT, two, "collect")
        if collect:
            window = _asked(lines, index, two, collect)
            secret = _secret_in(window)
            if secret:
                collects.append((line, secret, _named(window, secret)))
        hide = _near(HIDE, words, "hide") if has("hide", index) else None
        if hide is None and has("hide", index) and line.context not in ("table", "heading"):
            hide = _near(TRACES, words, "hide")  # a shortcut table's "clear history" is no order
        if hide:
            hides.append((line, hide, bool(_near(ACTION, words, "send") or _near(SEND, words, "send")
                                           or _near(TRACES, text, "hide"))))
        scope = _near(SHADOW_SCOPE, words, "scope") if has("scope", index) else None
        if scope and TOOL_REF.search(_section_text(lines, index)):
            yield ("instructions.tool-shadowing", "block",
                   ("sets rules for another server's tools that hold for every task while the "
                   "skill is installed"), line, scope.start(), scope.end())
        call = _near(SHADOW_CALL, text, "call") if has("call", index) else None
        if call is None and has("call", index):
            head = _near(SHADOW_HEAD, text, "call")
            if head is not None and SHADOW_EFFECT.search(text, head.end(), head.end() + 200):
                call = head
        if call and not SERVER_REF.search(_window(lines, index, 2)):
            call = None  # "when you run the tests, also lint": a workflow, not a tool's behaviour
        if call:
            around = text[max(0, call.start() - 200):call.end() + 400] + "\n" + \
                _window(lines, index, 2)[len(text):][:400]
            severity = "block" if SHADOW_EFFECT.search(around) else "warn"
            yield ("instructions.tool-shadowing", severity,
                   "changes what a call of another tool does (it also sends, copies or adds "
                   "someone)" if severity == "block" else
                   "tells the agent to do more whenever another tool is called",
                   line, call.start(), call.end())
    if sends is None:
        sends = _sends(lines) if asks or hides else []
    exfiltrated = False
    for line, secret, around in [*asks, *collects]:
        outside = [where for _, dests in sends for where in _outside(dests, around)]
        if outside:
            exfiltrated = True
            yield ("instructions.secret-exfiltration", "block",
                   (f"asks for a secret ({secret.group()[:40]}) and to send it to "
                   f"{outside[0][:80]}, outside the machine"), line, 0, None)
            break
    if not exfiltrated:
        for line, secret, _ in asks[:1]:
            yield ("instructions.secret-request", "warn",
                   f"asks the user for a secret ({secret.group()[:40]}) in the conversation",
                   line, 0, None)
    sends_out = any(_outside(dests, "") for _, dests in sends)
    for line, hide, with_action in hides:
        if with_action or sends_out or exfiltrated:
            yield ("instructions.concealment", "block",
                   ("tells the agent to keep a step from the user while it acts or sends data "
                   "out"), line, hide.start(), hide.end())
        else:
            yield ("instructions.user-kept-out", "warn",
                   "tells the agent not to tell the user something", line, hide.start(),
                   hide.end())


__all__ = ["ASK_USER", "COLLECT", "HIDE", "OVERRIDE_CLAIM", "SECRET", "SEND", "SHADOW_CALL",
           "SHADOW_SCOPE", "judge", "judge_text"]

#: The sends of a file and the destinations a secret leaves the machine for, for the clause
#: reading (:mod:`.reading`).
sends = _sends
outside = _outside
