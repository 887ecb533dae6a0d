"""JSON with comments: ``//`` and ``/* */`` comments and trailing commas, strings respected.

OpenCode (always), VS Code and Gemini CLI (in practice) read JSONC. :func:`loads` turns such a
text into Python data; :func:`segments` exposes the same lexer so that other passes (OpenCode's
``{env:}`` substitution) can tell code, strings and comments apart.

Comments are replaced by spaces (their newlines are kept) and a trailing comma by one space, so
the line and column of a parse error still point into the original text. The lexer is built from
regular expressions without nested repetition, so its cost is linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Literal

from lemon_core import jsondata
from lemon_core.jsondata import JsonProblem

_REASONS = {"too_deep": "nested too deeply", "not_json": "NaN or Infinity is not valid JSON"}

SegmentKind = Literal["code", "string", "comment"]

# One token per match: a string (possibly unterminated: it then runs to the end), a line
# comment, a block comment (possibly unterminated), a run of other characters, a lone slash.
_TOKEN = re.compile(
    r'(?P<string>"[^"\\]*(?:\\.[^"\\]*)*"?)'
    r"|(?P<line>//[^\n]*)"
    r"|(?P<block>/\*.*?(?:\*/|\Z))"
    r'|(?P<code>[^"/]+|/)',
    re.DOTALL,
)
_TRAILING_COMMA = re.compile(r",(?=\s*[}\]])")
_NOT_NEWLINE = re.compile(r"[^\n]")


class JsoncError(ValueError):
    """A JSONC text could not be parsed; the message names the line and column only."""

    def __init__(self, msg: str, lineno: int, colno: int) -> None:
        super().__init__(f"{msg} (line {lineno}, column {colno})")
        self.msg = msg
        self.lineno = lineno
        self.colno = colno


def segments(text: str) -> Iterator[tuple[SegmentKind, str]]:
    """Split ``text`` into consecutive ``(kind, piece)`` pairs that concatenate back to it."""
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        piece = match.group()
        if kind in ("line", "block"):
            yield "comment", piece
        elif kind == "string":
            yield "string", piece
        else:
            yield "code", piece


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def strip(text: str) -> str:
    """``text`` as strict JSON: comments blanked, trailing commas removed, positions kept.

    :raises JsoncError: for a block comment that is never closed.
    """
    blanked: list[str] = []
    offset = 0
    for kind, piece in segments(text):
        if kind == "comment":
            if piece.startswith("/*") and (len(piece) < 4 or not piece.endswith("*/")):
                raise JsoncError("unterminated block comment", *_position(text, offset))
            blanked.append(_NOT_NEWLINE.sub(" ", piece))
        else:
            blanked.append(piece)
        offset += len(piece)
    joined = "".join(blanked)
    # Second pass on comment-free text: a comma is trailing when only whitespace separates it
    # from a closing bracket, and that whitespace cannot contain a string, so searching each
    # code piece suffices.
    out: list[str] = []
    for kind, piece in segments(joined):
        out.append(_TRAILING_COMMA.sub(" ", piece) if kind == "code" else piece)
    return "".join(out)


def loads(text: str) -> Any:
    """Parse a JSONC text (a strict JSON text parses the same as with :func:`json.loads`).

    ``NaN`` and ``Infinity`` are rejected, as in strict JSON.

    :raises JsoncError: when the text is not valid JSONC (the message holds no file content).
    """
    return loads_json(strip(text))


def loads_json(text: str) -> Any:
    """Parse strict JSON, with errors reduced to a message, line and column.

    :raises JsoncError: when the text is not valid JSON, nests too deeply, or holds a number
        Python refuses (the message holds no file content).
    """
    try:  # other tools' parsers keep the last of two equal keys, and so does lemon here
        return jsondata.loads(text, max_depth=jsondata.PYTHON_DEPTH,
                              max_int_digits=jsondata.PYTHON_INT_DIGITS,
                              duplicates="last")
    except JsonProblem as problem:
        if problem.line is not None:
            raise JsoncError(problem.reason or "invalid JSON", problem.line,
                             problem.column or 1) from None
        raise JsoncError(_REASONS.get(problem.code, "a number is too large"), 1, 1) from None


__all__ = ["JsoncError", "SegmentKind", "loads", "loads_json", "segments", "strip"]
