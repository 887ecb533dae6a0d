"""Server name rules and the safe way to show a name (or any untrusted string) in a message.

A server name is case-sensitive, 1–64 ASCII letters, digits, underscores, dots and hyphens,
and starts with a letter or a digit. Names come from hand-edited and foreign files, so a message
never prints one raw: :func:`show` quotes it and escapes anything that is not printable ASCII
(an ANSI escape or a right-to-left mark in a hostile file cannot reach the terminal).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from lemon_core.errors import UsageError

NAME_MAX = 64
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}", re.ASCII)
NAME_RULE = (
    "1-64 ASCII letters, digits, underscores, dots or hyphens, starting with a letter or digit"
)


def is_valid_name(name: object) -> bool:
    """True when ``name`` is a string that follows the server name rules."""
    return isinstance(name, str) and _NAME_RE.fullmatch(name) is not None


def check_name(name: str) -> str:
    """Return ``name`` when it is valid, else raise :class:`UsageError` (exit status 2)."""
    if not is_valid_name(name):
        raise UsageError(f"invalid server name {show(name)}: use {NAME_RULE}")
    return name


def show(value: str, limit: int = 64) -> str:
    """``value`` as a double-quoted, ASCII-only string, cut to ``limit`` characters."""
    text = value if len(value) <= limit else value[:limit] + "…"
    return json.dumps(text, ensure_ascii=True)


#: How many close names a "not found" message offers at most.
SUGGESTIONS = 3


def close_names(word: str, candidates: Iterable[str]) -> list[str]:
    """The candidates closest to ``word`` for a "did you mean" (at most :data:`SUGGESTIONS`,
    best first): ``difflib``'s close matches, then names that start with or contain it."""
    import difflib

    pool = sorted(set(candidates))
    found = difflib.get_close_matches(word, pool, n=SUGGESTIONS, cutoff=0.6)
    lowered = word.lower()
    for item in pool:
        if len(found) >= SUGGESTIONS or not lowered:
            break
        if item not in found and lowered in item.lower():
            found.append(item)
    return found


__all__ = ["NAME_MAX", "NAME_RULE", "SUGGESTIONS", "check_name", "close_names",
           "is_valid_name", "show"]
