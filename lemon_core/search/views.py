"""The ``read_skill`` views of a SKILL.md text: ``summary``, ``section``, and the clamp.

Pure functions over text already read (the reading, and the "inside the skill's real path"
rule, are the caller's: :mod:`lemon_core.skills.agent`). Headings are ATX headings (``#`` to
``######``) outside fenced code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lemon_core.errors import NotFoundError
from lemon_core.manifest.frontmatter import FrontmatterError, split_frontmatter
from lemon_core.search.tokens import compact

VIEWS = ("full", "summary", "section", "file")
MAX_LISTED_FILES = 200
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


class UnknownSectionError(NotFoundError):
    """The skill has no heading of that name; ``headings`` lists the ones it has."""

    def __init__(self, message: str, *, headings: Sequence[str]) -> None:
        super().__init__(message)
        self.headings = tuple(headings)


def body_of(text: str) -> str:
    """The text after the frontmatter (all of it when there is none or it is unclosed)."""
    try:
        return split_frontmatter(text).body
    except FrontmatterError:
        return text


def headings(body: str) -> list[tuple[int, str, int]]:
    """``(level, title, line index)`` of every heading of ``body``, in order."""
    found = []
    fence: str | None = None
    for number, line in enumerate(body.splitlines()):
        mark = _FENCE.match(line)
        if mark:
            if fence is None:
                fence = mark.group(1)
            elif mark.group(1) == fence:
                fence = None
            continue
        if fence is None:
            match = _HEADING.match(line)
            if match and match.group(2):
                found.append((len(match.group(1)), match.group(2), number))
    return found


def section(text: str, name: str, *, key: str = "") -> str:
    """The section of ``text`` headed ``name`` (case, spacing and punctuation ignored): its
    heading line and everything up to the next heading of the same or a higher level.

    :raises UnknownSectionError: naming the headings there are.
    """
    body = body_of(text)
    found = headings(body)
    wanted = compact(name.lstrip("#"))
    lines = body.splitlines()
    for i, (level, title, start) in enumerate(found):
        if compact(title) == wanted and wanted:
            end = next((line for lvl, _, line in found[i + 1:] if lvl <= level), len(lines))
            return "\n".join(lines[start:end]).rstrip() + "\n"
    titles = [title for _, title, _ in found]
    shown = ", ".join(repr(t) for t in titles[:20]) + (" …" if len(titles) > 20 else "")
    there = f"its headings are {shown}" if titles else "it has no headings"
    raise UnknownSectionError(
        f"skill {key!r} has no section {name!r}; {there} (pass one as --section, or use "
        f"--view summary to see them)", headings=titles)


def summary(key: str, name: str, description: str, text: str,
            files: Sequence[str] = ()) -> str:
    """What a skill is and what it holds, without its body: name, description, the outline
    of its headings and its other files (read them with the ``file`` view)."""
    lines = [f"# {name}" if name == key else f"# {name} ({key})"]
    if description:
        lines += ["", description]
    outline = headings(body_of(text))
    if outline:
        lines += ["", "Sections:"]
        lines += [f"{'  ' * (level - 1)}- {title}" for level, title, _ in outline]
    if files:
        lines += ["", "Files:"] + [f"- {path}" for path in files]
    return "\n".join(lines) + "\n"


def clamp(content: str, max_chars: int | None) -> tuple[str, bool]:
    """``content`` cut to ``max_chars`` characters (None: whole), and whether it was cut; a cut
    text ends with a note saying how much was left out."""
    if max_chars is None or len(content) <= max_chars:
        return content, False
    note = f"\n[... truncated: {max_chars} of {len(content)} characters shown]\n"
    return content[:max_chars] + note, True


__all__ = ["VIEWS", "UnknownSectionError", "body_of", "clamp", "headings", "section",
           "summary"]
