"""The safe reader: the only way lemon reads a file, its own or another tool's.

A project directory is untrusted input: a file lemon expects may be huge (or a 3 GB sparse
file), a FIFO, a device (a link to ``/dev/zero`` or ``/dev/stdin``), a socket or a directory,
or not UTF-8. Every read here:

- opens without blocking (``O_NONBLOCK | O_CLOEXEC | O_NOCTTY``, and ``O_NOFOLLOW`` when the
  caller asks that the last component not be a symbolic link), so a FIFO or a device never
  hangs the open and a terminal never becomes lemon's controlling terminal;
- checks with ``fstat`` on the open descriptor that it is a regular file, and reads nothing
  otherwise;
- is bounded by what is read, not by ``st_size`` (a size over the cap is refused at once, and
  reading stops after ``max_bytes + 1`` bytes whatever the size claimed);
- reports every problem as a :class:`FileProblem` whose message holds no file content.

:func:`read_bytes` and :func:`read_text` read a whole (bounded) file. :func:`read_head` reads
the first bytes of a file that may be longer; :func:`open_regular` and :func:`read_up_to` are
the two steps beneath them, for a hot path that reads a file's head in steps (the manifest
loader).

Reading beneath a root: given ``beneath=<folder>``, the path is relative to that folder and is
opened by walking from the folder's descriptor, one component at a time, with ``O_NOFOLLOW``
on each (:func:`open_beneath`, built on :mod:`lemon_core.fsio.beneath`). A folder or file on
the way that is (or was just swapped for) a symbolic link is refused with code "symlink"; a
``..`` or absolute path with code "outside". Nothing is looked up by path again, so a swap
while lemon reads fails closed: never bytes from outside the folder. The server read path
(:mod:`lemon_core.fsio.inside`) reads every served skill file this way.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

#: The largest configuration file lemon reads by default (4 MiB); larger files are reported.
MAX_FILE_BYTES = 4 * 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_FLAGS |= getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)  # a tty never controls us
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CHUNK = 1 << 20


class FileProblem(Exception):
    """A file could not be used. ``kind`` is "read", "parse" or "schema"; ``code`` a stable
    name for what went wrong ("missing", "not_a_file", "not_a_folder", "symlink",
    "too_large", "unreadable", "invalid_utf8", or a parser's own code)."""

    def __init__(self, kind: str, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.code = code or {"read": "unreadable", "parse": "invalid", "schema": "invalid"}.get(
            kind, kind)


class TooLarge(FileProblem):
    """A file larger than the cap; it was not read (or not beyond the cap)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__("read", f"too large (over {max_bytes} bytes); not read", "too_large")


class NotRegular(FileProblem):
    """Not a regular file (a FIFO, device, socket or directory); it was not read."""

    def __init__(self, what: str = "not a regular file") -> None:
        super().__init__("read", f"{what}; not read", "not_a_file")


def describe(exc: OSError) -> str:
    """A short reason for an OS error, without the path."""
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or type(exc).__name__


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder, not a regular file"
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def open_regular(path: Path | str, *, nofollow: bool = False) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at ``path``, opened without blocking, and its
    ``fstat``; the caller closes the descriptor.

    :raises OSError: as ``os.open`` does (``FileNotFoundError`` for a missing file,
        ``OSError`` with ``ELOOP`` for a symbolic link under ``nofollow``).
    :raises ValueError: for a path holding a NUL character.
    :raises NotRegular: when it is anything but a regular file (nothing was read).
    """
    return _regular(os.open(path, (_OPEN_FLAGS | _NOFOLLOW) if nofollow else _OPEN_FLAGS))


def _regular(fd: int) -> tuple[int, os.stat_result]:
    """``fd`` and its stat when it is a regular file; otherwise it is closed.

    :raises NotRegular: for anything else.
    """
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(_kind_of(info.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def open_beneath(root: Path | str, relative: Path | str) -> tuple[int, os.stat_result]:
    """:func:`open_regular` for ``root/relative``, reached from ``root`` without following any
    link: ``root``'s own last component and every component of ``relative`` are opened with
    ``O_NOFOLLOW`` relative to the folder before. The caller closes the descriptor.

    :raises FileProblem: code "symlink" for a link on the way, "outside" for ``..``, ``.`` or
        an absolute ``relative``, "missing", "not_a_folder"; :class:`NotRegular` otherwise.
    """
    from lemon_core.errors import PlantedLinkError
    from lemon_core.fsio import beneath

    root = Path(root)
    if os.path.isabs(relative):
        raise FileProblem("read", "an absolute path; a file is read only beneath its folder",
                          "outside")
    try:
        parts = beneath.parts_below(root, Path(relative))
    except beneath.OutsideRootError:
        raise FileProblem("read", "a path with '..' or '.' in it; a file is read only beneath "
                          "its folder by plain names", "outside") from None
    if not parts:
        raise NotRegular(_kind_of(stat.S_IFDIR))
    if not beneath.HAVE_DIR_FD:  # no openat here: check each folder, then open the last one
        try:
            with beneath.parent_of(root, root.joinpath(*parts)):
                pass
        except PlantedLinkError:
            raise FileProblem("read", "a folder on its path is a symbolic link; not followed",
                              "symlink") from None
        return open_regular(root.joinpath(*parts), nofollow=True)
    try:
        folder = beneath.open_dir(root, root.joinpath(*parts[:-1]), root_nofollow=True)
    except PlantedLinkError:
        raise FileProblem("read", "a folder on its path is a symbolic link; not followed",
                          "symlink") from None
    try:
        fd = os.open(parts[-1], _OPEN_FLAGS | _NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)
    return _regular(fd)


def read_up_to(fd: int, size: int, end: int = -1) -> bytes:
    """Up to ``size`` bytes from ``fd``; fewer only at the end of the file. ``end``: the file's
    size when reading from its start, so that a file read whole needs no second read."""
    chunk = os.read(fd, min(size, _CHUNK))
    if len(chunk) in (0, size, end):
        return chunk
    parts = [chunk]
    got = len(chunk)
    while got < size:
        more = os.read(fd, min(size - got, _CHUNK))
        if not more:
            break
        parts.append(more)
        got += len(more)
    return b"".join(parts)


def _open(path: Path | str, missing_ok: bool, nofollow: bool,
          beneath: Path | str | None = None) -> tuple[int, os.stat_result] | None:
    try:
        if beneath is not None:
            return open_beneath(beneath, path)
        return open_regular(path, nofollow=nofollow)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise FileProblem("read", "does not exist", "missing") from None
    except NotADirectoryError:
        raise FileProblem("read", "cannot open the file: a folder on its path is a file",
                          "not_a_folder") from None
    except IsADirectoryError:  # some systems refuse to open a directory read-only
        raise NotRegular(_kind_of(stat.S_IFDIR)) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            raise NotRegular("a socket or a device, not a regular file") from None
        if (nofollow or beneath is not None) and exc.errno == errno.ELOOP:
            raise FileProblem("read", "a symbolic link; not followed", "symlink") from None
        raise FileProblem("read", f"cannot open the file: {describe(exc)}") from None
    except ValueError:  # a NUL in the path (an OpenCode {file:} reference, say)
        raise FileProblem("read", "cannot open the file: the path holds a NUL character") from None


def read_head(path: Path | str, size: int, *, missing_ok: bool = True,
              nofollow: bool = False, beneath: Path | str | None = None) -> bytes | None:
    """The first ``size`` bytes of the regular file at ``path`` (all of it when shorter), or
    None when it does not exist (``missing_ok``). Ask for one byte more than you accept to
    tell that a file is larger. ``beneath``: see :func:`read_bytes`.

    :raises FileProblem: (kind "read") when it is not a regular file or cannot be read.
    """
    opened = _open(path, missing_ok, nofollow, beneath)
    if opened is None:
        return None
    fd, info = opened
    try:
        return read_up_to(fd, size, info.st_size)
    except OSError as exc:
        raise FileProblem("read", f"cannot read the file: {describe(exc)}") from None
    finally:
        os.close(fd)


def read_bytes(path: Path | str, max_bytes: int = MAX_FILE_BYTES, *, missing_ok: bool = True,
               nofollow: bool = False, beneath: Path | str | None = None) -> bytes | None:
    """The file's bytes, or None when it does not exist (with ``missing_ok``; otherwise a
    missing file is a problem with code "missing"). With ``beneath``, ``path`` is relative to
    that folder and reached without following any link (:func:`open_beneath`).

    :raises FileProblem: (kind "read") when it is not a regular file, is larger than
        ``max_bytes`` (:class:`TooLarge`) or cannot be read.
    """
    opened = _open(path, missing_ok, nofollow, beneath)
    if opened is None:
        return None
    fd, info = opened
    try:
        if info.st_size > max_bytes:
            raise TooLarge(max_bytes)
        data = read_up_to(fd, max_bytes + 1, info.st_size)
    except OSError as exc:
        raise FileProblem("read", f"cannot read the file: {describe(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise TooLarge(max_bytes)
    return data


def decode_utf8(data: bytes) -> str:
    """``data`` as UTF-8 (a leading BOM dropped). Raises :class:`FileProblem` ("parse",
    code "invalid_utf8") naming only the offset of the first bad byte."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem("parse", f"not valid UTF-8 (byte {exc.start})", "invalid_utf8") from None


def read_text(path: Path | str, max_bytes: int = MAX_FILE_BYTES, *, missing_ok: bool = True,
              nofollow: bool = False, beneath: Path | str | None = None) -> str | None:
    """The file decoded as UTF-8 (a leading BOM dropped), or None when it does not exist.

    :raises FileProblem: as :func:`read_bytes`; kind "parse" when it is not valid UTF-8.
    """
    data = read_bytes(path, max_bytes, missing_ok=missing_ok, nofollow=nofollow,
                      beneath=beneath)
    return None if data is None else decode_utf8(data)


__all__ = [
    "MAX_FILE_BYTES",
    "FileProblem",
    "NotRegular",
    "TooLarge",
    "decode_utf8",
    "describe",
    "open_beneath",
    "open_regular",
    "read_bytes",
    "read_head",
    "read_text",
    "read_up_to",
]
