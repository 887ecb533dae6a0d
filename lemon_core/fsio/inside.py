"""A file served from a skill must be inside the skill folder.

A skill folder may be a symbolic link (users link skills in from checkouts), and the files in it
may be links too. What lemon reads from a skill, or later hands to an agent, serves, installs or
hashes, is a file whose *real* path (every link resolved) lies inside the skill folder's own real
path: a ``SKILL.md`` that links to ``/etc/passwd``, or ``references/x.md`` that links to
``~/.ssh/id_rsa``, is refused as :class:`OutsideFolder`, never read.

- :func:`resolve_inside` resolves and checks, without reading.
- :func:`read_inside_bytes` / :func:`read_inside_text` resolve, check, then open the resolved
  path *beneath the folder's real path* through the bounded safe reader
  (:func:`lemon_core.fsio.read.open_beneath`): from the real root's descriptor, one component
  at a time, with ``O_NOFOLLOW`` on each.

The check and the read are two steps, and someone who can rewrite the skill folder while lemon
reads it (a process flipping ``references/`` between a folder and a link to ``~/.ssh``) could
swap a link in between. The open closes that gap: the resolved path holds no link, so a link
found on the way at open time is a swap, and the read fails closed (code "symlink") instead of
serving bytes from outside the folder.
"""

from __future__ import annotations

import os

from lemon_core.fsio.read import (
    MAX_FILE_BYTES,
    FileProblem,
    NotRegular,
    open_beneath,
    read_bytes,
    read_text,
)

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
    root, rest = _split(folder, relative)
    return read_bytes(rest, max_bytes, beneath=root)


def read_inside_text(
    folder: PathLike, relative: PathLike, max_bytes: int = MAX_FILE_BYTES
) -> str | None:
    """:func:`read_inside_bytes` decoded as :func:`lemon_core.fsio.read.read_text` does."""
    root, rest = _split(folder, relative)
    return read_text(rest, max_bytes, beneath=root)


def open_inside(folder: PathLike, relative: PathLike) -> tuple[int, os.stat_result]:
    """A descriptor (and ``fstat``) of the regular file ``folder/relative`` when it resolves
    inside ``folder``, opened beneath the folder's real path (see the module docstring); for a
    reader that reads a head in steps. The caller closes it.

    :raises OutsideFolder: when it resolves outside the folder (nothing is opened).
    :raises FileProblem: code "symlink" for a link swapped in meanwhile, and as
        :func:`lemon_core.fsio.read.open_beneath`; ``OSError`` as ``os.open``.
    """
    root, rest = _split(folder, relative)
    return open_beneath(root, rest)


def _split(folder: PathLike, relative: PathLike) -> tuple[str, str]:
    """The folder's real path and the resolved file's path relative to it (checked inside)."""
    target = resolve_inside(folder, relative)
    try:
        root = os.path.realpath(folder)
    except (OSError, ValueError) as exc:
        raise FileProblem("read", f"cannot resolve the path: {exc}") from None
    if target == root:
        raise NotRegular("a folder, not a regular file")
    if not target.startswith(root.rstrip(os.sep) + os.sep):  # the folder moved meanwhile
        raise OutsideFolder(target)
    return root, target[len(root.rstrip(os.sep)) + 1:]


__all__ = ["OutsideFolder", "is_inside", "open_inside", "read_inside_bytes", "read_inside_text",
           "resolve_inside"]
