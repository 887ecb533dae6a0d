"""The bounded excerpt of a skill's body that relevance reads.

Only the head of the SKILL.md is read (:data:`READ_BYTES`, through the safe reader); the
frontmatter is skipped, fenced code is dropped (commands and sample data say little about what
a skill is for), and at most :data:`EXCERPT_CHARS` characters of the rest are kept. A file that
cannot be read or split gives the empty excerpt: relevance then uses the metadata alone.
"""

from __future__ import annotations

import os
import re

from lemon_core.fsio.inside import open_inside
from lemon_core.fsio.read import FileProblem, read_up_to
from lemon_core.manifest.frontmatter import FrontmatterError, split_frontmatter

READ_BYTES = 16 * 1024
EXCERPT_CHARS = 4000

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)


def without_fenced_code(text: str, limit: int | None = None) -> str:
    """``text`` with every fenced code block (its fences included) replaced by a newline; an
    unclosed fence runs to the end. With ``limit``, only the first ``limit`` characters of the
    result are exact (the search for fences stops there)."""
    if "```" not in text and "~~~" not in text:
        return text  # no fence can open (most bodies): no regex scan at all
    marks = _FENCE.finditer(text)
    pieces: list[str] = []
    kept = position = 0
    opening = next(marks, None)
    while opening is not None:
        piece = text[position:opening.start()]
        pieces.append(piece)
        kept += len(piece) + 1
        if limit is not None and kept > limit:
            return "\n".join(pieces)
        fence = opening.group(1)
        closing = next(marks, None)
        while closing is not None and not (closing.group(1)[0] == fence[0]
                                           and len(closing.group(1)) >= len(fence)):
            closing = next(marks, None)
        if closing is None:
            return "\n".join(pieces)
        end = text.find("\n", closing.end())
        position = len(text) if end < 0 else end
        opening = next(marks, None)
    pieces.append(text[position:])
    return "\n".join(pieces)


def body_excerpt_of_text(text: str) -> str:
    """The excerpt of a SKILL.md's text (see the module docstring)."""
    try:
        body = split_frontmatter(text).body
    except FrontmatterError:
        return ""  # a frontmatter longer than what was read: no body in sight
    return without_fenced_code(body[: 4 * EXCERPT_CHARS], EXCERPT_CHARS)[:EXCERPT_CHARS]


def body_excerpt(path: str) -> str:
    """The excerpt of the SKILL.md at ``path``; empty when it cannot be read. It is opened
    beneath its skill folder's real path, as every file lemon serves is."""
    try:
        fd, info = open_inside(os.path.dirname(path), os.path.basename(path))
        try:
            data = read_up_to(fd, READ_BYTES, info.st_size)
        finally:
            os.close(fd)
    except (FileProblem, OSError, ValueError):
        return ""
    if not data:
        return ""
    return body_excerpt_of_text(data.decode("utf-8", "replace"))


__all__ = ["EXCERPT_CHARS", "READ_BYTES", "body_excerpt", "body_excerpt_of_text"]
