"""Renames and deletes in a skills folder: in a project, never through a link.

Global scope (``root`` None): plain path operations (the user's own folders, where a dotfile
link is theirs). Project scope: every rename and delete is made relative to the descriptor of
the folder reached beneath the project root one component at a time with ``O_NOFOLLOW``
(:mod:`lemon_core.fsio.beneath`), so a planted or swapped ``.lemon/skill -> ~/.claude/skills``
is refused (:class:`~lemon_core.errors.PlantedLinkError`) instead of written through.
"""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core.fsio import beneath
from lemon_core.install.staging import remove_tree


def exists(path: Path, root: Path | None = None) -> bool:
    """Whether anything (a link too) is at ``path``; in a project, reached beneath ``root``."""
    return beneath.lexists(root, path) if root is not None else os.path.lexists(path)


def move(source: Path, target: Path, root: Path | None = None) -> None:
    """Rename ``source`` to ``target``; in a project, beneath ``root`` without following links."""
    if root is not None:
        beneath.rename(root, source, target)
    else:
        os.rename(source, target)


def delete(path: Path, root: Path | None = None) -> None:
    """Remove the folder, file or link at ``path`` (nothing followed); in a project, the
    folders on the way are reached beneath ``root``."""
    if root is not None:
        beneath.remove_tree(root, path)
    else:
        remove_tree(path)


__all__ = ["delete", "exists", "move"]
