"""Where each line of a bundle file sits: markdown prose, a heading, a table row, a quote, an
HTML comment, a fenced example (with its language), frontmatter, or a line of a script (code or
comment) — and whether it stands in a *warning* context ("never run this", a table of
dangerous commands, a section about attacks), where a quoted command is not an instruction.

Line-oriented on purpose: a pattern auditor asks "what is line N", and every answer is one
regular-expression pass over the file.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import NamedTuple

import attrs

from lemon_core.auditor_kit.lazy import lazy_compile
from lemon_core.auditor_kit.lines import line_starts
from lemon_core.auditor_kit.scripts import comment_starts, fence_language, file_kind, is_comment

#: Context names a :class:`Line` may carry.

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())

CONTEXTS = ("frontmatter", "heading", "prose", "table", "quote", "comment", "fence",
            "code", "script-comment", "data")

_NEGATORS = frozenset({"never", "don't", "dont", "avoid", "shouldn't", "mustn't", "nunca",
                       "niemals", "jamais"})
_NEGATOR_PAIRS = frozenset({("do", "not"), ("must", "not"), ("should", "not"),
                            ("refuse", "to"), ("cannot", "be"), ("not", "to")})
_ACTIONS = _words("""run runs running execute executing use using paste pasting type copy pipe
    piping eval source install download trust follow call allow click open do add put write
    commit send share expose store hardcode hard-code log print echo leak upload""")
_NOT_AFTER = frozenset({"forget", "skip", "hesitate", "fail", "miss", "neglect", "wait"})
_DANGER_WORDS = _words("""dangerous malicious harmful destructive insecure unsafe forbidden
    prohibited blocked blocklist denylist antipattern antipatterns anti-pattern anti-patterns
    attack attacks attacker attackers exploit exploits threat threats malware iocs risky phishing
    don'ts""")
_DANGER_PHRASES = ("vulnerab", "red flag", "bad example", "bad practice", "bad pattern",
                   "bad code", "what not to", "examples of attack", "examples of malware",
                   "example of attack", "indicators of compromise", "indicator of compromise",
                   "detection rule", "detection pattern", "detection signature", "not allowed",
                   "never do", "do not do", "injection example", "block list", "deny list",
                   "不要运行", "不要执行", "切勿", "禁止")
_MARK_CHARS = ("❌", "⛔", "🚫", "☠", "✗", "✘")
_UPPER_MARKS = frozenset({"BAD", "WRONG", "DON'T", "DONT", "NEVER", "AVOID"})
_TOKEN = lazy_compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_UPPER = lazy_compile(r"\b[A-Z][A-Z'’]{2,}\b")
#: One of these appears in every text :func:`is_warning` accepts (a cheap first test).
_STEMS = ("never", "don", "not", "avoid", "refuse", "jamais", "nunca", "niemals", "shouldn",
          "mustn", "danger", "malic", "harm", "destruct", "insecure", "unsafe", "forbid",
          "prohibit", "block", "deny", "anti", "red flag", "attack", "exploit", "threat",
          "vulnerab", "bad", "wrong", "malware", "ioc", "indicator", "detection", "risky",
          "phishing", "injection", "不要", "切勿", "禁止", *_MARK_CHARS)
#: Any of :data:`_STEMS`: one search in C where a test per stem was a Python loop (a text
#: holds a stem exactly when this finds one).
_ANY_STEM = lazy_compile("|".join(re.escape(stem) for stem in _STEMS))
#: Code spans, URLs and dotted names (``file.sh``, ``api.example``): not prose words. A URL or
#: a name is tried only where its run of name characters starts (``\b`` let every ``-`` inside
#: a long run start a scan to its end: quadratic in ``cp-cp-cp…``).
_NOT_WORDS = lazy_compile(r"`[^`]*`|(?<![\w+.-])[a-z][\w+.-]*://\S+"
                          r"|(?<![\w-])[\w-]+(?:\.[\w-]+)+\b", re.IGNORECASE)
#: An ATX heading; its text is group 2 without the closing run of spaces and ``#``s (stripped
#: in Python: a lazy ``(.*?)`` before ``[ \t#]*$`` was quadratic in a line of ``# # # …``).
_HEADING = lazy_compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?[ \t#]*$")
_FENCE = lazy_compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_TABLE_SEPARATOR = lazy_compile(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _negated_action(tokens: list[str]) -> bool:
    for index, token in enumerate(tokens):
        start = None
        if token in _NEGATORS:
            start = index + 1
        elif index + 1 < len(tokens) and (token, tokens[index + 1]) in _NEGATOR_PAIRS:
            start = index + 2
        if start is None:
            continue
        for follower in tokens[start:start + 4]:
            if follower in _NOT_AFTER:
                break
            if follower in _ACTIONS:
                return True
    return False


@functools.lru_cache(maxsize=4096)
def is_warning(text: str) -> bool:
    """Whether a heading, table header or lead line warns against what follows ("never run
    this", "dangerous commands", ❌, a section about attacks). Words in code spans, URLs and
    host names do not count: ``attacker.invalid`` is not a warning."""
    lower = text.lower()
    if _ANY_STEM.search(lower) is None:
        return False
    if any(mark in text for mark in _MARK_CHARS):
        return True
    if "`" in text or "." in text:
        text = _NOT_WORDS.sub(" ", text)
        lower = text.lower()
    if any(phrase in lower for phrase in _DANGER_PHRASES):
        return True
    tokens = _TOKEN.findall(lower)
    if _DANGER_WORDS.intersection(tokens) or _negated_action(tokens):
        return True
    return bool(_UPPER_MARKS.intersection(_UPPER.findall(text)))


class Line(NamedTuple):
    """One line of a file: ``number`` (1-based), ``text`` (without the newline), ``context``
    (one of :data:`CONTEXTS`), ``language`` (of a fence or script), ``start`` (offset of the
    line in the file's text). :attr:`warned` says it stands in a warning context: its section,
    fence or table is one (``section_warned``), or — for prose, quotes and table rows
    (``own_text``) — the line's own words warn."""

    number: int
    text: str
    context: str
    language: str | None = None
    section_warned: bool = False
    start: int = 0
    own_text: bool = False

    @property
    def warned(self) -> bool:
        return self.section_warned or (self.own_text and is_warning(self.text))

    @property
    def is_code(self) -> bool:
        """Code something runs or an agent is shown as a command: a script line, a fence."""
        return self.context in ("code", "fence")


@attrs.frozen
class Document:
    """A file's :class:`Line` records, its ``kind`` (``markdown``/``script``/``data``/
    ``text``) and script ``language``."""

    path: str
    kind: str
    language: str | None
    lines: tuple[Line, ...]

    def line(self, number: int) -> Line:
        return self.lines[number - 1]


def _split(text: str) -> list[tuple[int, str]]:
    """``(offset, line)`` of each line of ``text`` (a trailing ``\\r`` dropped)."""
    pieces = text.split("\n")
    starts = line_starts(pieces)
    if "\r" in text:
        return [(start, piece.removesuffix("\r")) for start, piece in zip(starts, pieces)]
    return list(zip(starts, pieces))


@functools.lru_cache(maxsize=32)
def _comment_firsts(language: str | None) -> frozenset[str]:
    """The characters a whole-line comment of ``language`` can open with, in either case: a
    line opening with another ASCII character is code without testing it further."""
    firsts = {start[0] for start in comment_starts(language)}
    return frozenset(firsts | {char.upper() for char in firsts})


def _code_kinds(pieces: list[str], language: str | None) -> list[str]:
    """``script-comment`` or ``code`` for each line of a script (the lines of a Python
    triple-quoted block that starts on its own line are comments)."""
    firsts = _comment_firsts(language)
    python = language == "python"
    kinds: list[str] = []
    append = kinds.append
    in_doc = False  # inside a Python triple-quoted block that started on its own line
    in_str = False  # inside one that started after code (``TEXT = """``): a string, not a comment
    for raw in pieces:
        stripped = raw.lstrip()
        if python and in_str:
            append("code")
            if (raw.count('"""') + raw.count("'''")) % 2:
                in_str = False
        elif python and (in_doc or stripped[:3] in ('"""', "'''")):
            quotes = stripped.count('"""') + stripped.count("'''")
            append("script-comment")
            if not in_doc and quotes == 1 or in_doc and quotes >= 1:
                in_doc = not in_doc
        elif stripped and (stripped[0] in firsts or not stripped[0].isascii()) and \
                is_comment(raw, language):
            append("script-comment")
        else:
            append("code")
            if python and ('"""' in raw or "'''" in raw) and \
                    (raw.count('"""') + raw.count("'''")) % 2:
                in_str = True
    return kinds


def _script_lines(text: str, language: str | None, context: str) -> tuple[Line, ...]:
    pieces = text.split("\n")
    starts = line_starts(pieces)
    if "\r" in text:
        pieces = [piece.removesuffix("\r") for piece in pieces]
    kinds = _code_kinds(pieces, language) if context == "code" else itertools.repeat(context)
    make = functools.partial(tuple.__new__, Line)
    return tuple(map(make, zip(itertools.count(1), pieces, kinds, itertools.repeat(language),
                               itertools.repeat(False), starts, itertools.repeat(False))))


def _markdown_lines(text: str) -> tuple[Line, ...]:
    raw_lines = _split(text)
    out: list[Line] = []
    append = out.append
    make = functools.partial(tuple.__new__, Line)
    fence: tuple[str, int] | None = None  # (char, length)
    fence_lang: str | None = None
    fence_warned = False
    in_front = bool(raw_lines) and raw_lines[0][1].strip() == "---"
    in_comment = False
    sections: list[tuple[int, bool]] = []  # (level, warned) of the open headings
    section_warned = False
    table_warned: bool | None = None
    lead = ""  # the last non-blank prose line: it may warn against the fence or table after it
    for index, (start, raw) in enumerate(raw_lines):
        number = index + 1
        if in_front:
            append(make((number, raw, "frontmatter", None, False, start, False)))
            if index > 0 and raw.strip() in ("---", "..."):
                in_front = False
            continue
        if fence is not None:
            stripped = raw.strip()
            if stripped[:1] == fence[0] and stripped == fence[0] * len(stripped) and \
                    len(stripped) >= fence[1] and len(raw) - len(raw.lstrip(" ")) < 4:
                fence = None
                lead = ""
            append(make((number, raw, "fence", fence_lang, fence_warned, start, False)))
            continue
        if in_comment or "<!--" in raw[:8]:
            opened = raw.find("<!--")
            in_comment = raw.find("-->", opened + 4 if opened >= 0 else 0) == -1
            append(make((number, raw, "comment", None, section_warned, start, False)))
            continue
        stripped = raw.strip()
        if not stripped:
            table_warned = None
            append(make((number, raw, "prose", None, section_warned, start, False)))
            continue
        first = stripped[0]
        if first in "`~":
            match = _FENCE.match(raw)
            if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
                fence = (match.group(1)[0], len(match.group(1)))
                fence_lang = fence_language(match.group(2))
                fence_warned = section_warned or is_warning(lead) or is_warning(match.group(2))
                append(make((number, raw, "fence", fence_lang, fence_warned, start, False)))
                continue
        if first == "#":
            heading = _HEADING.match(raw)
            if heading:
                level = len(heading.group(1))
                while sections and sections[-1][0] >= level:
                    sections.pop()
                sections.append((level, is_warning((heading.group(2) or "").rstrip(" \t#"))))
                section_warned = any(w for _, w in sections)
                lead = ""
                append(make((number, raw, "heading", None, section_warned, start, False)))
                continue
        if first == "|" or (table_warned is not None and "|" in stripped):
            if table_warned is None:  # the header row decides for the whole table
                table_warned = is_warning(stripped) or is_warning(lead)
            append(make((number, raw, "table", None, section_warned or table_warned, start, True)))
            continue
        if first == ">":
            append(make((number, raw, "quote", None, section_warned, start, True)))
            lead = stripped
            continue
        lead = stripped
        append(make((number, raw, "prose", None, section_warned, start, True)))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def document(path: str, text: str) -> Document:
    """The :class:`Document` of the bundle entry ``path`` whose text is ``text``: markdown
    (``.md``, ``.rst``, ``.txt``…) line by line with fences, tables, comments and warning
    contexts; a script's lines — and those of a file of no known kind, which may well be run
    (``sh scripts/setup``) — as ``code`` or ``script-comment``; data files as ``data``. Cached for the
    last files seen, so every auditor of one bundle shares one parse."""
    kind, language = file_kind(path, text)
    if kind in ("script", "text"):  # a file of no known kind is judged as code, not prose
        lines = _script_lines(text, language, "code")
    elif kind == "data":
        lines = _script_lines(text, None, "data")
    else:
        lines = _markdown_lines(text)
    return Document(path, kind, language, lines)


_CODE_SPAN = lazy_compile(r"(`+)(.+?)\1")


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each inline code span's content in one line of markdown."""
    return [(m.start(2), m.end(2)) for m in _CODE_SPAN.finditer(text)]


def in_code_span(text: str, offset: int) -> bool:
    return any(start <= offset < end for start, end in code_spans(text))


def table_cells(text: str) -> list[tuple[int, str]]:
    """``(offset, text)`` of each cell of a markdown table row: split at every ``|`` that is
    neither escaped (``\\|``) nor inside inline code, so a row's separators are never read
    as pipes while ``curl … | sh`` in a code span stays whole."""
    spans = code_spans(text)
    cells, begin, at, span = [], 0, text.find("|"), 0
    while at != -1:
        while span < len(spans) and spans[span][1] <= at:
            span += 1
        quoted = span < len(spans) and spans[span][0] <= at
        if not quoted and (at == 0 or text[at - 1] != "\\"):
            cells.append((begin, text[begin:at]))
            begin = at + 1
        at = text.find("|", at + 1)
    cells.append((begin, text[begin:]))
    return [(offset, cell) for offset, cell in cells if cell.strip()]


__all__ = ["CONTEXTS", "Document", "Line", "code_spans", "document", "in_code_span",
           "is_warning", "table_cells"]
