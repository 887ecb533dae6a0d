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

Each folder is listed through a descriptor reached from the skill folder's real path one
component at a time with ``O_NOFOLLOW`` (:func:`lemon_core.fsio.beneath.open_dir`), so a
sub-folder swapped for a link to an outside folder while it is listed is skipped, never listed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from lemon_core.errors import LemonError
from lemon_core.fsio import beneath
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
        entries = _entries(real_folder, path, prefix)
        if entries is None:
            continue
        for name, kind, sub_path in entries:
            if name.startswith(".") or (not unsafe_names and unsafe_reason(name) is not None):
                continue
            relative = prefix + name
            if depth == 0 and name == "SKILL.md":
                continue
            if kind == "link":
                if _linked_file(real_folder, relative):
                    out.append(relative)
            elif kind == "dir":
                if depth + 1 < MAX_DEPTH:
                    pending.append((sub_path, relative + "/", depth + 1))
            elif kind == "file":
                out.append(relative)
    return tuple(sorted(out[:limit]))


def _kind(entry: os.DirEntry[str]) -> str:
    try:
        if entry.is_symlink():
            return "link"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        pass
    return "other"


def _listed(listing: Iterator[os.DirEntry[str]], path: str) -> list[tuple[str, str, str]]:
    return sorted((e.name, _kind(e), os.path.join(path, e.name)) for e in listing)


def _entries(real_folder: str, path: str, prefix: str) -> list[tuple[str, str, str]] | None:
    """The sorted (name, kind, path) of the folder ``prefix`` below the skill, None when it
    cannot be listed (or a link was swapped in on the way)."""
    if not beneath.HAVE_DIR_FD:
        try:
            with os.scandir(path) as listing:
                return _listed(listing, path)
        except OSError:
            return None
    root = Path(real_folder)
    try:
        fd = beneath.open_dir(root, root.joinpath(*prefix.split("/")[:-1]), root_nofollow=True)
    except (OSError, LemonError):
        return None
    try:
        with os.scandir(fd) as listing:
            return _listed(listing, path)
    except OSError:
        return None
    finally:
        os.close(fd)


def _linked_file(real_folder: str, relative: str) -> bool:
    try:
        target = resolve_inside(real_folder, relative)
        return stat.S_ISREG(os.stat(target).st_mode)
    except (FileProblem, OSError):
        return False


__all__ = ["MAX_DEPTH", "MAX_FILES", "skill_files"]
