"""The words an agent sees: the server's instructions and the two tools' descriptions.

``find_skills``'s description names up to :data:`NAMED_SKILLS` skills (fewer when their names
would pass :data:`NAMES_BUDGET` characters), then counts the rest, so the ``tools/list``
response stays small whatever the catalog holds. Names are catalog data: each is flattened to
one line of visible text before it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from lemon_core.text import escape

NAMED_SKILLS = 300
NAMES_BUDGET = 9_000
MAX_NAME_CHARS = 64

INSTRUCTIONS = (
    "This server holds skills: instructions for specific tasks, loaded only when needed. "
    "Before working on a task one of them may cover, call find_skills with a few words of the "
    "request, then load the best match with load_skill and follow it. load_skill returns the "
    "skill's text, its directory and its other files; read those with your own tools, "
    "relative to that directory."
)

LOAD_DESCRIPTION = (
    "Load one skill by its exact name (as find_skills returns it). Returns its full SKILL.md "
    "text as content, its absolute directory, and files: the relative paths of its other "
    "files, to read or run from that directory with your own tools. An unknown name is an "
    "error that lists close names."
)


def _shown(name: str) -> str:
    flat = escape(" ".join(name.split()))
    return flat if len(flat) <= MAX_NAME_CHARS else flat[: MAX_NAME_CHARS - 1] + "…"


def find_description(names: Sequence[str]) -> str:
    """``find_skills``'s description for a catalog of ``names`` (sorted by the caller)."""
    head = (
        "Search the skills this server holds. Returns the name and description of the best "
        "matches (at most ten) for the whitespace-separated words of query, ignoring case "
        "and hyphens; an empty query returns every skill. Then call load_skill with a name."
    )
    if not names:
        return head + " It holds no skills at the moment."
    shown: list[str] = []
    used = 0
    for name in names[:NAMED_SKILLS]:
        item = _shown(name)
        if used + len(item) + 2 > NAMES_BUDGET:
            break
        shown.append(item)
        used += len(item) + 2
    rest = len(names) - len(shown)
    listing = ", ".join(shown)
    more = f", and {rest} more" if rest else ""
    return f"{head} Skills: {listing}{more}."


__all__ = ["INSTRUCTIONS", "LOAD_DESCRIPTION", "NAMED_SKILLS", "NAMES_BUDGET",
           "find_description"]
