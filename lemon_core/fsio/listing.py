"""A skill folder's other files: what ``lemon skill inspect``, ``read_skill`` and
``load_skill`` list beside its text.

The list holds the relative POSIX paths of the regular files below the skill folder, sorted,
``SKILL.md`` itself left out; hidden names (``.git``) are skipped, and so is any link whose real
path leaves the skill folder (or leads to anything but a regular file). Linked folders are not
entered. A name holding a control, line-break or bidi character (:func:`lemon_core.text.
unsafe_reason`: a terminal escape, a forged line, a reversed extension) is left out with all
below it, unless the caller prints names escaped for a person (``unsafe_names=True``): the
agents' list goes to a model and, through it, to a person. Bounded: at most ``limit`` paths
(:data:`MAX_FILES`), :data:`MAX_DEPTH` levels.
"""

from __future__ import annotations

import os
import stat

from lemon_core.fsio.inside import resolve_inside
from lemon_core.fsio.read import FileProblem
from lemon_core.text import unsafe_reason

MAX_FILES = 1_000
MAX_DEPTH = 16


def skill_files(folder: str, *, limit: int = MAX_FILES, unsafe_names: bool = False
                ) -> tuple[str, ...]:
    """The skill's other files (see the module docstring)."""
    out: list[str] = []
    pending: list[tuple[str, str, int]] = [(folder, "", 0)]
    try:
        real_folder = os.path.realpath(folder)
    except (OSError, ValueError):
        return ()
    while pending and len(out) < limit:
        path, prefix, depth = pending.pop()
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(".") or (
                    not unsafe_names and unsafe_reason(entry.name) is not None):
                continue
            relative = prefix + entry.name
            if depth == 0 and entry.name == "SKILL.md":
                continue
            try:
                if entry.is_symlink():
                    if _linked_file(real_folder, relative):
                        out.append(relative)
                elif entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_DEPTH:
                        pending.append((entry.path, relative + "/", depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    out.append(relative)
            except OSError:
                continue
    return tuple(sorted(out[:limit]))


def _linked_file(real_folder: str, relative: str) -> bool:
    try:
        target = resolve_inside(real_folder, relative)
        return stat.S_ISREG(os.stat(target).st_mode)
    except (FileProblem, OSError):
        return False


__all__ = ["MAX_DEPTH", "MAX_FILES", "skill_files"]
