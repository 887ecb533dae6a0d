"""One file's prose read by :mod:`.clauses`: the paragraphs worth reading (found by the
shared word search, on the folded text when tricks hide the words), each judged sentence by
sentence, then the combinations that span the file (a secret asked for here, sent out
there)."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence

from lemon_plugins.auditors.instructions import fold as folding
from lemon_plugins.auditors.instructions import intent
from lemon_plugins.auditors.instructions.clauses import (
    Hit,
    Raw,
    _all_stems,
    _clause,
    _mentioned,
    _negated,
    _outside,
    _Sentence,
    _sentences,
    destinations,
    leaves,
    stems,
)

from lemon_core.auditor_kit import Line
from lemon_core.auditor_kit.lines import indexed, word_lines

#: Where the words are instructions (a fenced example is the code auditors' to read; a
#: script's code only in a server that describes tools to an agent).
_READ_CONTEXTS = frozenset({"prose", "heading", "quote", "table", "comment", "frontmatter",
                            "data", "script-comment"})
#: A paragraph is read at most this far around the line that made it worth reading.
_SPAN = 12

MESSAGES = {
    "secret-exfiltration": "asks for a secret ({secret}) and to send it to {where}, outside "
                           "the machine",
    "concealment": "tells the agent to act out of the user's sight ({words}) while it moves "
                   "data",
    "lie": "tells the agent to lie to the user if asked ({words})",
    "tool-shadowing": "changes what every tool or another server's tools do ({words})",
    "override": "tells the agent to set its earlier or system instructions aside ({words})",
}


@functools.lru_cache(maxsize=1)
def _concepts_of() -> dict[str, tuple[str, ...]]:
    """The concepts each stem is a word of."""
    out: dict[str, list[str]] = {}
    for name, group in stems().items():
        for stem in group:
            out.setdefault(stem, []).append(name)
    return {stem: tuple(names) for stem, names in out.items()}


def _concept_lines(found: dict[str, frozenset[int]]) -> dict[str, set[int]]:
    """For each concept, the lines holding one of its stems (from the words found)."""
    out: dict[str, set[int]] = {name: set() for name in stems()}
    concepts = _concepts_of()
    for stem, held in found.items():
        for name in concepts.get(stem, ()):
            out[name] |= held
    return out


def _near(lines: set[int], other: set[int], reach: int = 1) -> set[int]:
    """The lines of ``lines`` with a line of ``other`` at most ``reach`` lines away."""
    if not lines or not other:
        return set()
    return lines & {number + step for number in other for step in range(-reach, reach + 1)}


def _paragraph(lines: Sequence[Line], texts: Sequence[str], at: int) -> tuple[int, int]:
    """The 0-based ``[first, last]`` lines of the block around line ``at``."""
    context = lines[at].context
    first = at
    while first > 0 and at - first < _SPAN and texts[first - 1].strip() and \
            lines[first - 1].context == context:
        first -= 1
    last = at
    while last + 1 < len(lines) and last - at < _SPAN and texts[last + 1].strip() and \
            lines[last + 1].context == context:
        last += 1
    return first, last


def read(lines: Sequence[Line], text: str, code: bool = False,
         prose: bool = True) -> Iterator[Raw]:
    """The findings of one file (``lines`` its :class:`Line` list, ``text`` its text);
    ``code``: its code lines are read too (the strings of a server's tool descriptions);
    ``prose``: the file is prose (markdown or text), where base64 is decoded and read."""
    contexts = _READ_CONTEXTS | {"code"} if code else _READ_CONTEXTS
    folded = folding.fold(text) if folding.needs_fold(text) else text
    texts: Sequence[str] = _Texts(lines)
    if folded is not text:
        texts = folded.split("\n")
        if len(texts) != len(lines):
            texts = _Texts(lines)
    index, lower = indexed(folded)
    by_concept = _concept_lines(word_lines(index, lower, _all_stems()))
    # a line is worth reading when the words of a finding meet there (or a line away)
    wanted = _near(by_concept["silent"] | by_concept["manner"],
                   by_concept["action"] | by_concept["send"])
    wanted |= _near(by_concept["asked"], by_concept["deny"])
    wanted |= _near(by_concept["scope"] | by_concept["builtin"], by_concept["effect"])
    wanted |= (by_concept["ignore"] | by_concept["void"]) & by_concept["instructions"]
    wanted |= _near(by_concept["secret"], by_concept["send"] | by_concept["ask"], 2)
    if by_concept["ask"] & by_concept["secret"]:  # asked here, maybe sent out there
        wanted |= {number for number in by_concept["send"]
                   if "://" in texts[number - 1] or "@" in texts[number - 1]}
    extra = []  # (line index, decoded text): base64 in prose
    for number in folding.base64_lines(text, index) if prose else ():
        line = lines[number - 1] if number <= len(lines) else None
        if line is not None and line.context in ("prose", "quote", "comment"):
            extra += [(number - 1, decoded) for decoded in folding.decoded_prose(line.text)]
    state = _FileState()
    done: set[int] = set()
    blocks: set[str] = set()
    seeds = {number - 1 for number in wanted}
    for number in sorted(wanted):
        at = number - 1
        if at in done or at >= len(lines) or lines[at].context not in contexts:
            continue
        first, last = _paragraph(lines, texts, at)
        done.update(range(first, last + 1))
        block = "\n".join(texts[first:last + 1])
        if block in blocks:
            continue  # a repeated paragraph (boilerplate) says what its first copy said
        blocks.add(block)
        yield from _judge_block(lines, texts, first, last, state, seeds=seeds)
    for at, decoded in extra:
        yield from _judge_block(lines, [decoded], 0, 0, state, line=lines[at])
    yield from state.finish(lines)


class _Texts(Sequence[str]):
    """The lines' texts, read when asked for (most files have no line worth reading)."""

    def __init__(self, lines: Sequence[Line]) -> None:
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    def __getitem__(self, at):  # type: ignore[no-untyped-def, override]
        if isinstance(at, slice):
            return [line.text for line in self._lines[at]]
        return self._lines[at].text


class _FileState:
    """What one file has said so far: secrets asked or read, sends to outside hosts."""

    def __init__(self) -> None:
        self.asks: list[tuple[Line, str, str]] = []  # (line, the secret, its words)
        self.sent_to: list[str] = []  # where the prose sends something
        self.blocked = False
        self.form_target = False  # a table row names where the form is sent (| send to | …)
        self.fields: list[tuple[Line, str, str]] = []  # a table's secret fields

    def finish(self, lines: Sequence[Line]) -> Iterator[Raw]:
        asks = self.asks or (self.fields if self.form_target else [])
        if not asks or self.blocked:
            return
        line, secret, words = asks[0]
        where = next((where for where in self.sent_to if leaves(where, words)), None) or \
            next((found for _, dests in intent.sends(lines)
                  for found in intent.outside(dests, words)), None)
        if where is not None:
            yield ("instructions.secret-exfiltration", "block",
                   MESSAGES["secret-exfiltration"].format(secret=secret[:40],
                                                          where=where[:80]), line, 0, None)


def _judge_block(lines: Sequence[Line], texts: Sequence[str], first: int, last: int,
                 state: _FileState, line: Line | None = None,
                 seeds: set[int] | None = None) -> Iterator[Raw]:
    """The findings of the lines ``first`` to ``last``: each sentence that stands on a line
    of ``seeds`` (0-based; every sentence when None) or next to one, read with the
    sentences around it."""
    block = [texts[at] for at in range(first, last + 1)]
    body = "\n".join(block)
    starts = [0]
    for piece in block[:-1]:
        starts.append(starts[-1] + len(piece) + 1)
    context = (line or lines[first]).context
    sentences = _sentences(body)

    def where(offset: int) -> tuple[Line, int]:
        if line is not None:
            return line, 0
        row = bisect.bisect_right(starts, offset) - 1
        return lines[first + row], offset - starts[row]

    for number, sentence in enumerate(sentences):
        if seeds is not None:
            top = first + bisect.bisect_right(starts, sentence.start) - 1
            bottom = first + bisect.bisect_right(starts, sentence.end - 1) - 1
            if not any(row in seeds for row in range(top - 1, bottom + 2)):
                continue
        previous = sentences[number - 1] if number else None
        following = sentences[number + 1] if number + 1 < len(sentences) else None
        for rule, key, match, words in _judge_sentence(sentence, previous, following,
                                                       context, state):
            at, column = where(sentence.start + match.start())
            if rule in ("ask", "field"):
                (state.asks if rule == "ask" else state.fields).append(
                    (at, words["secret"], words["named"]))
                continue
            if at.warned or at.section_warned:
                continue
            yield (f"instructions.{rule}", "block", MESSAGES[key].format(**words), at,
                   column, column + len(match.group()))


def _judge_sentence(sentence: _Sentence, previous: _Sentence | None,
                    following: _Sentence | None, context: str,
                    state: _FileState) -> Iterator[tuple[str, str, Hit, dict[str, str]]]:
    text = sentence.text
    # overriding: a verb, instructions, earlier or the system's, in one clause
    for verb in sentence.get("ignore") if context not in ("table", "heading") else ():
        begin, end = _clause(text, verb.start())
        near = text[begin:end]
        if _within(sentence, verb, "instructions") and _within(sentence, verb, "prior") and \
                not _negated(sentence, verb) and not _mentioned(sentence, verb, context):
            yield "override", "override", verb, {"words": near.strip()[:80]}
            break
    for void in sentence.get("void"):
        if _within(sentence, void, "instructions", 80) and \
                _within(sentence, void, "prior", 80) and \
                not _mentioned(sentence, void, context):
            yield "override", "override", void, {"words": void.group()}
            break
    # out of the user's sight: a manner of acting, with the action in its clause (or in
    # the sentence before when this one is short: "Do this silently.") ...
    for quiet in sentence.get("manner"):
        if _negated(sentence, quiet) or _mentioned(sentence, quiet, context) or \
                _in_clause(sentence, quiet, "fails") or _described(sentence.text, quiet):
            continue  # "never do it silently"; "uploads fail silently"; "is silently dropped"
        short = len(sentence.text.split()) <= 6
        begin, end = _clause(sentence.text, quiet.start())
        alone = len(sentence.text[begin:end].split()) <= 3  # ", silently."
        if _in_clause(sentence, quiet, "action") or (alone and sentence.get("action")) or \
                (short and previous is not None and previous.get("action")):
            yield "concealment", "concealment", quiet, {"words": quiet.group()}
            break
    # ... or an order not to tell, with an action in its sentence or the one before
    for quiet in sentence.get("silent"):
        if _negated(sentence, quiet) or _mentioned(sentence, quiet, context):
            continue
        if sentence.get("action") or (previous is not None and previous.get("action")):
            yield "concealment", "concealment", quiet, {"words": quiet.group()}
            break
    for asked in sentence.get("asked"):
        if (sentence.get("deny") or (following is not None and following.get("deny"))) and \
                not _mentioned(sentence, asked, context):
            yield "concealment", "lie", asked, {"words": asked.group()}
            break
    # another server's tools, every tool, the built-in tools
    builtin = [hit for hit in sentence.get("builtin") if _in_clause(sentence, hit, "toolword")]
    for scope in [*sentence.get("scope"), *builtin]:
        effect = sentence.get("effect") or (following.get("effect") if following else [])
        if effect and not _negated(sentence, scope) and \
                not _mentioned(sentence, scope, context):
            yield "tool-shadowing", "tool-shadowing", scope, \
                {"words": f"{scope.group()} … {effect[0].group()}"}
            break
    # secrets
    secrets = sentence.get("secret")
    if sentence.get("send") and \
            not any(_negated(sentence, send) for send in sentence.get("send")):
        state.sent_to += destinations(sentence.text)
        if context == "table" and following is not None and len(text.split()) <= 3:
            found = destinations(following.text)  # a form's | submit to | https://… | row
            state.sent_to += found
            state.form_target = state.form_target or bool(found)
    if not secrets:
        return
    secret = secrets[0]
    named = text[max(0, secret.start() - 30):secret.end()]
    if sentence.get("only") or (sentence.get("usage") and not sentence.get("ask")):
        return  # "send the key only to its API", "in the Authorization header": the key used
    for send in sentence.get("send"):
        if _negated(sentence, send) or _mentioned(sentence, send, context):
            continue
        around = text + ("\n" + following.text if following is not None else "")
        outside = _outside(around, named)
        if outside:
            state.blocked = True
            yield "secret-exfiltration", "secret-exfiltration", secret, \
                {"secret": secret.group(), "where": outside[0][:80]}
            return
        break
    if context == "table" and len(text.split()) <= 3 and \
            not any(_negated(sentence, hit) for hit in secrets):  # a form's secret field
        yield "field", "ask", secret, {"secret": secret.group(), "named": named}
        return
    for verb in sentence.get("ask"):  # read from the machine: only sent in the sentence
        if not _negated(sentence, verb) and not _mentioned(sentence, verb, context):
            yield "ask", "ask", verb, {"secret": secret.group(), "named": named}
            break


def _within(sentence: _Sentence, match: Hit, concept: str, reach: int = 45) -> bool:
    """Whether a ``concept`` match stands in the clause of ``match``, at most ``reach``
    characters from it."""
    start, end = match.start(), match.end()
    return any(other.start() - end <= reach and start - other.end() <= reach and
               not (other.start() >= start and other.end() <= end)
               for other in sentence.get(concept)
               if not _split(sentence.text, min(start, other.start()), max(end, other.end())))


#: A manner said of what happens, not asked ("is silently dropped", "silently ignored").
_DESCRIBED_BEFORE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got|getting|runs|"
                               r"works|exits|fails|returns|happens|proceeds|operates|"
                               r"continues|completes|finishes)\s+$",
                               re.IGNORECASE)
_DESCRIBED_AFTER = re.compile(r"\s*\w+ed\b", re.IGNORECASE)


def _described(text: str, hit: Hit) -> bool:
    return _DESCRIBED_BEFORE.search(text, max(0, hit.start() - 12), hit.start()) is not None \
        or _DESCRIBED_AFTER.match(text, hit.end()) is not None


def _in_clause(sentence: _Sentence, match: Hit, concept: str) -> bool:
    begin, end = _clause(sentence.text, match.start())
    return any(begin <= other.start() < end for other in sentence.get(concept))


def _split(text: str, begin: int, end: int) -> bool:
    return any(mark in text[begin:end] for mark in ".;:!?。；：！？।۔؟\n")
