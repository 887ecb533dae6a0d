"""A file served from a skill must be inside the skill folder.

A skill folder may be a symbolic link (users link skills in from checkouts), and the files in it
may be links too. What lemon reads from a skill, or later hands to an agent, serves, installs or
hashes, is a file whose *real* path (every link resolved) lies inside the skill folder's own real
path: a ``SKILL.md`` that links to ``/etc/passwd``, or ``references/x.md`` that links to
``~/.ssh/id_rsa``, is refused as :class:`OutsideFolder`, never read.

- :func:`resolve_inside` resolves and checks, without reading.
- :func:`read_inside_bytes` / :func:`read_inside_text` resolve, check, then read the resolved
  path through the bounded safe reader (:mod:`lemon_core.fsio.read`).

The check and the read are two steps: someone who can rewrite the skill folder while lemon reads
it could swap a link in between. That is outside what this guards against (a cloned repository,
a skill linked in from elsewhere); an attacker with live write access has the files anyway.
"""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core.fsio.read import MAX_FILE_BYTES, FileProblem, read_bytes, read_text

PathLike = str | os.PathLike[str]


class OutsideFolder(FileProblem):
    """The file's real path leaves the skill folder (through a link, ``..`` or an absolute
    path); it was not read."""

    def __init__(self, target: str) -> None:
        super().__init__("read", f"resolves outside the skill folder (to {target}); a skill's "
                         "files must be inside it: copy the file into the skill")
        self.target = target


def resolve_inside(folder: PathLike, relative: PathLike) -> str:
    """The real path of ``folder/relative``, checked to lie inside ``folder``'s real path.

    ``relative`` may hold links at any level; it must not be absolute. The file need not exist
    (a missing one resolves to where it would be, and the reader then says it is missing).

    :raises OutsideFolder: when the resolved path is not inside the folder's real path.
    :raises FileProblem: (kind "read") when either path cannot be resolved.
    """
    try:
        if os.path.isabs(relative):
            raise OutsideFolder(os.fspath(relative))
        real_folder = os.path.realpath(folder)
        target = os.path.realpath(os.path.join(real_folder, relative))
    except (OSError, ValueError) as exc:  # a loop too deep, a NUL in a path
        raise FileProblem("read", f"cannot resolve the path: {exc}") from None
    if target != real_folder and not target.startswith(real_folder.rstrip(os.sep) + os.sep):
        raise OutsideFolder(target)
    return target


def is_inside(folder: PathLike, relative: PathLike) -> bool:
    """Whether ``folder/relative`` resolves inside ``folder`` (see :func:`resolve_inside`)."""
    try:
        resolve_inside(folder, relative)
    except FileProblem:
        return False
    return True


def read_inside_bytes(
    folder: PathLike, relative: PathLike, max_bytes: int = MAX_FILE_BYTES
) -> bytes | None:
    """The bytes of ``folder/relative`` when it resolves inside ``folder``; None when it does
    not exist.

    :raises OutsideFolder: when it resolves outside the folder (nothing is read).
    :raises FileProblem: as :func:`lemon_core.fsio.read.read_bytes`.
    """
    return read_bytes(Path(resolve_inside(folder, relative)), max_bytes)


def read_inside_text(
    folder: PathLike, relative: PathLike, max_bytes: int = MAX_FILE_BYTES
) -> str | None:
    """:func:`read_inside_bytes` decoded as :func:`lemon_core.fsio.read.read_text` does."""
    return read_text(Path(resolve_inside(folder, relative)), max_bytes)


__all__ = ["OutsideFolder", "is_inside", "read_inside_bytes", "read_inside_text",
           "resolve_inside"]
