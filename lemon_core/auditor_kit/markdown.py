"""Where each line of a bundle file sits: markdown prose, a heading, a table row, a quote, an
HTML comment, a fenced example (with its language), frontmatter, or a line of a script (code or
comment) — and whether it stands in a *warning* context ("never run this", a table of
dangerous commands, a section about attacks), where a quoted command is not an instruction.

Line-oriented on purpose: a pattern auditor asks "what is line N", and every answer is one
regular-expression pass over the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs

from lemon_core.auditor_kit.scripts import fence_language, file_kind, is_comment

#: Context names a :class:`Line` may carry.
CONTEXTS = ("frontmatter", "heading", "prose", "table", "quote", "comment", "fence",
            "code", "script-comment", "data")

_NEGATED_ACTION = re.compile(
    r"\b(?:never|don'?t|do\s+not|must\s+not|should\s+not|shouldn'?t|avoid|refuse\s+to|"
    r"ne\s+jamais|nunca|niemals|不要|切勿|禁止)\s+"
    r"(?!(?:forget|skip|hesitate|fail|miss|neglect|wait)\b)(?:[\w-]+\s+){0,3}?"
    r"(?:run|runs|running|execute|executing|use|using|paste|pasting|type|copy|pipe|piping|eval|"
    r"source|install|download|trust|follow|call|allow|click|open|do|add|put|write|commit|"
    r"send|share|expose|store|hard-?code|log|print|echo|leak|upload)\b",
    re.IGNORECASE,
)
_DANGER = re.compile(
    r"\b(?:dangerous|malicious|harmful|destructive|insecure|unsafe|forbidden|prohibited|"
    r"blocked|block-?list|deny-?list|anti-?patterns?|red\s+flags?|attacks?|attackers?|"
    r"exploits?|threats?|vulnerab\w*|bad\s+(?:examples?|practices?|patterns?|code)|"
    r"what\s+not\s+to|examples?\s+of\s+(?:attacks?|malware|injections?)|malware|malicious\s+payloads?|"
    r"iocs?|indicators?\s+of\s+compromise|detection\s+(?:rules?|patterns?|signatures?)|"
    r"not\s+allowed|never\s+do|do\s+not\s+do|don'?ts|risky|phishing|injection\s+examples?)\b",
    re.IGNORECASE,
)
_MARKS = re.compile(r"❌|⛔|🚫|☠|✗|✘|\bBAD\b|\bWRONG\b|\bDON'?T\b|\bNEVER\b|\bAVOID\b")
_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_TABLE_SEPARATOR = re.compile(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


def is_warning(text: str) -> bool:
    """Whether a heading, table header or lead line warns against what follows."""
    return bool(_NEGATED_ACTION.search(text) or _DANGER.search(text) or _MARKS.search(text))


@attrs.frozen
class Line:
    """One line of a file: ``number`` (1-based), ``text`` (without the newline), ``context``
    (one of :data:`CONTEXTS`), ``language`` (of a fence or script), ``warned`` (inside a
    warning context), ``start`` (offset of the line in the file's text)."""

    number: int
    text: str
    context: str
    language: str | None = None
    warned: bool = False
    start: int = 0

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


def _split(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for piece in text.split("\n"):
        yield start, piece.removesuffix("\r")
        start += len(piece) + 1


def _script_lines(text: str, language: str | None, context: str) -> tuple[Line, ...]:
    lines = []
    in_doc = False  # inside a Python triple-quoted block that started on its own line
    for number, (start, raw) in enumerate(_split(text), 1):
        kind = context
        if context == "code":
            stripped = raw.strip()
            if language == "python" and (in_doc or stripped[:3] in ('"""', "'''")):
                quotes = stripped.count('"""') + stripped.count("'''")
                kind = "script-comment"
                if not in_doc and quotes == 1 or in_doc and quotes >= 1:
                    in_doc = not in_doc
            elif is_comment(raw, language):
                kind = "script-comment"
        lines.append(Line(number, raw, kind, language, False, start))
    return tuple(lines)


def _markdown_lines(text: str) -> tuple[Line, ...]:
    raw_lines = list(_split(text))
    out: list[Line] = []
    fence: tuple[str, int] | None = None  # (char, length)
    fence_lang: str | None = None
    fence_warned = False
    in_front = bool(raw_lines) and raw_lines[0][1].strip() == "---"
    in_comment = False
    sections: list[tuple[int, bool]] = []  # (level, warned) of the open headings
    table_warned: bool | None = None
    lead_warned = False  # the last non-blank prose line warned against what follows
    for index, (start, raw) in enumerate(raw_lines):
        number = index + 1
        section_warned = any(w for _, w in sections)
        if in_front:
            out.append(Line(number, raw, "frontmatter", None, False, start))
            if index > 0 and raw.strip() in ("---", "..."):
                in_front = False
            continue
        if fence is not None:
            match = _FENCE.match(raw)
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= fence[1] \
                    and not match.group(2).strip():
                fence = None
                out.append(Line(number, raw, "fence", fence_lang, fence_warned, start))
                lead_warned = False
                continue
            out.append(Line(number, raw, "fence", fence_lang, fence_warned, start))
            continue
        if in_comment or raw.lstrip().startswith("<!--"):
            opened = raw.find("<!--")
            closed = raw.find("-->", opened + 4 if opened >= 0 else 0)
            in_comment = closed == -1
            out.append(Line(number, raw, "comment", None, section_warned, start))
            continue
        stripped = raw.strip()
        if not stripped:
            table_warned = None
            out.append(Line(number, raw, "prose", None, section_warned, start))
            continue
        match = _FENCE.match(raw)
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            fence = (match.group(1)[0], len(match.group(1)))
            fence_lang = fence_language(match.group(2))
            fence_warned = section_warned or lead_warned or is_warning(match.group(2))
            out.append(Line(number, raw, "fence", fence_lang, fence_warned, start))
            continue
        heading = _HEADING.match(raw)
        if heading:
            level = len(heading.group(1))
            while sections and sections[-1][0] >= level:
                sections.pop()
            warned = is_warning(heading.group(2) or "")
            sections.append((level, warned))
            lead_warned = False
            out.append(Line(number, raw, "heading", None, any(w for _, w in sections), start))
            continue
        if stripped.startswith("|") or (table_warned is not None and "|" in stripped):
            if table_warned is None:  # the header row decides for the whole table
                following = raw_lines[index + 1][1] if index + 1 < len(raw_lines) else ""
                table_warned = is_warning(stripped) or lead_warned
                if not _TABLE_SEPARATOR.match(following) and not stripped.startswith("|"):
                    table_warned = None
            row_warned = section_warned or bool(table_warned) or is_warning(stripped)
            out.append(Line(number, raw, "table", None, row_warned, start))
            continue
        if stripped.startswith(">"):
            warned = section_warned or is_warning(stripped)
            out.append(Line(number, raw, "quote", None, warned, start))
            lead_warned = warned
            continue
        warned_here = is_warning(stripped)
        lead_warned = warned_here
        out.append(Line(number, raw, "prose", None, section_warned or warned_here, start))
    return tuple(out)


def document(path: str, text: str) -> Document:
    """The :class:`Document` of the bundle entry ``path`` whose text is ``text``: markdown
    (and plain text) line by line with fences, tables, comments and warning contexts; a
    script's lines as ``code`` or ``script-comment``; data files as ``data``."""
    kind, language = file_kind(path, text)
    if kind == "script":
        lines = _script_lines(text, language, "code")
    elif kind == "data":
        lines = _script_lines(text, None, "data")
    else:
        lines = _markdown_lines(text)
    return Document(path, kind, language, lines)


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each inline code span's content in one line of markdown."""
    return [(m.start(2), m.end(2)) for m in _CODE_SPAN.finditer(text)]


def in_code_span(text: str, offset: int) -> bool:
    return any(start <= offset < end for start, end in code_spans(text))


__all__ = ["CONTEXTS", "Document", "Line", "code_spans", "document", "in_code_span",
           "is_warning"]
