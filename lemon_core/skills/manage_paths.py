"""Where ``skill_manage`` may write inside a skill: the rules for a supporting file's path.

A supporting file lives under one of :data:`FOLDERS` (``references/``, ``templates/``,
``scripts/``, ``assets/``), by a relative POSIX path of plain names: no ``..``, no absolute
path, no backslash, no hidden or control-character name, nothing through a link. SKILL.md
itself is written by ``create``/``edit``/``patch``, never by ``write_file``.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from lemon_core.errors import UsageError

#: The folders of a skill ``write_file`` and ``remove_file`` may touch.
FOLDERS = ("references", "templates", "scripts", "assets")
_MAX_DEPTH = 6
_MAX_NAME = 128


def _name_problem(part: str) -> str | None:
    if part in ("", "."):
        return "has an empty part"
    if part == "..":
        return "climbs out of the skill with '..'"
    if part.startswith("."):
        return f"has a hidden name {part!r}"
    if len(part) > _MAX_NAME:
        return f"has a name longer than {_MAX_NAME} characters"
    if any(unicodedata.category(c)[0] == "C" for c in part):
        return "has a control or invisible character in a name"
    if any(c in part for c in ':*?"<>|'):
        return "has a character other systems do not allow in a file name"
    return None


def check_file_path(path: str | None) -> str:
    """``path`` as a relative POSIX path under one of :data:`FOLDERS`; else a
    :class:`UsageError` saying why it is refused and what is allowed."""
    if not isinstance(path, str) or not path:
        raise UsageError("path is required: a file under references/, templates/, scripts/ "
                         "or assets/ of the skill")
    allowed = "; write under references/, templates/, scripts/ or assets/ of the skill"
    if "\\" in path or "\0" in path:
        raise UsageError(f"the path {path!r} is refused: it holds a backslash or a NUL"
                         + allowed)
    if path.startswith("/") or Path(path).is_absolute() or (len(path) > 1 and path[1] == ":"):
        raise UsageError(f"the path {path!r} is refused: it is absolute" + allowed)
    parts = path.split("/")
    for part in parts:
        problem = _name_problem(part)
        if problem is not None:
            raise UsageError(f"the path {path!r} is refused: it {problem}" + allowed)
    if parts[0] not in FOLDERS or len(parts) < 2:
        raise UsageError(f"the path {path!r} is refused: it is not inside one of the "
                         f"supporting folders" + allowed)
    if len(parts) > _MAX_DEPTH:
        raise UsageError(f"the path {path!r} is refused: it is nested deeper than "
                         f"{_MAX_DEPTH} folders" + allowed)
    return "/".join(parts)


def check_no_link(skill_dir: Path, relative: str) -> None:
    """Refuse ``relative`` when any part of it inside ``skill_dir`` is a symbolic link (the
    write would go where the link points)."""
    current = skill_dir
    for part in relative.split("/"):
        current = current / part
        if current.is_symlink():
            raise UsageError(f"the path {relative!r} is refused: {current.name} is a link; "
                             f"a skill's supporting files are written only as plain files")


__all__ = ["FOLDERS", "check_file_path", "check_no_link"]
