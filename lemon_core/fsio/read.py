"""Bounded, non-blocking reading of another tool's configuration file.

A project directory is untrusted input: its "config file" may be huge, a FIFO, a device or a
directory, or not UTF-8. :func:`read_text` opens without blocking, reads only regular files,
never more than ``max_bytes`` (+1 to detect the excess), and reports every problem as a
:class:`FileProblem` whose message holds no file content.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The largest configuration file lemon reads (4 MiB); larger files are reported, not read.
MAX_FILE_BYTES = 4 * 1024 * 1024

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class FileProblem(Exception):
    """A file could not be used. ``kind`` is "read", "parse" or "schema"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class TooLarge(FileProblem):
    """A file larger than the cap; it was not read."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__("read", f"too large (over {max_bytes} bytes); not read")


def _describe(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return exc.strerror or type(exc).__name__


def read_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes | None:
    """The file's bytes, or None when it does not exist.

    :raises FileProblem: (kind "read") when it is not a regular file, is larger than
        ``max_bytes`` ("too large") or cannot be read.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise FileProblem("read", f"cannot open the file: {_describe(exc)}") from None
    except ValueError:  # a NUL in the path (an OpenCode {file:} reference, say)
        raise FileProblem("read", "cannot open the file: the path holds a NUL character") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem("read", "not a regular file; not read")
        if info.st_size > max_bytes:
            raise TooLarge(max_bytes)
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise FileProblem("read", f"cannot read the file: {_describe(exc)}") from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise TooLarge(max_bytes)
    return data


def read_text(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str | None:
    """The file decoded as UTF-8 (a leading BOM dropped), or None when it does not exist.

    :raises FileProblem: as :func:`read_bytes`; kind "parse" when it is not valid UTF-8.
    """
    data = read_bytes(path, max_bytes)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem("parse", f"not valid UTF-8 (byte {exc.start})") from None


__all__ = ["MAX_FILE_BYTES", "FileProblem", "TooLarge", "read_bytes", "read_text"]
