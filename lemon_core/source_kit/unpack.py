"""Safe, bounded unpacking of a skill archive (``.tar.gz``, ``.tar`` or ``.zip``) for sources.

:func:`unpack` writes the members of an archive held in memory into an empty folder, and
refuses the whole archive (a :class:`~lemon_core.errors.LemonError` naming the member) at the
first member that is a link (symbolic or hard), a device, a FIFO or anything but a file or a
folder; that has an absolute name, a ``..`` step, a backslash or a name lemon would not write
(:func:`~lemon_core.fsio.names.file_name_problem`); or that takes the archive past the skill
caps (:class:`~lemon_core.fsio.tree.TreeLimits`: bytes per file, bytes in all, entries,
depth). Sizes are checked from the headers before anything is read, and again while reading
(a header that lies is caught). Files are created with ``O_EXCL | O_NOFOLLOW``: nothing is
written through a link or over a file. Nothing unpacked is ever run.
"""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path
from typing import IO

from lemon_core.errors import LemonError
from lemon_core.fsio.names import file_name_problem
from lemon_core.fsio.tree import DEFAULT_LIMITS, TreeLimits

_CHUNK = 64 * 1024


class UnpackRefused(LemonError):
    """The archive holds something lemon does not unpack, or is over a cap."""


def archive_kind(data: bytes, hint: str = "") -> str:
    """``zip`` or ``tar`` from the archive's first bytes (the name ``hint`` breaks no tie)."""
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        return "zip"
    if data[:2] == b"\x1f\x8b" or hint.endswith((".tar", ".tar.gz", ".tgz")):
        return "tar"
    if len(data) > 262 and data[257:262] == b"ustar":
        return "tar"
    raise UnpackRefused("the archive is neither a .tar.gz nor a .zip; refused")


def _check_name(name: str, limits: TreeLimits) -> list[str]:
    if name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise UnpackRefused(f"the archive member {name!r} has an absolute name; refused")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnpackRefused(f"the archive member {name!r} leads out with '..'; refused")
    for part in parts:
        problem = file_name_problem(part)
        if problem is not None:
            raise UnpackRefused(f"the archive member {name!r}: a name {problem}; refused")
    if len(parts) > limits.max_depth:
        raise UnpackRefused(f"the archive member {name!r} nests deeper than "
                            f"{limits.max_depth} levels; refused")
    return parts


class _Writer:
    def __init__(self, dest: Path, limits: TreeLimits) -> None:
        self.dest, self.limits = dest, limits
        self.total = self.entries = 0

    def count(self, name: str, size: int) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise UnpackRefused(f"the archive holds more than {self.limits.max_entries} "
                                "entries; refused")
        if size > self.limits.max_file_bytes:
            raise UnpackRefused(f"the archive member {name!r} is {size} bytes; a skill file "
                                f"may hold at most {self.limits.max_file_bytes}")
        self.total += size
        if self.total > self.limits.max_total_bytes:
            raise UnpackRefused(f"the archive unpacks past {self.limits.max_total_bytes} "
                                "bytes; refused")

    def folder(self, parts: list[str]) -> Path:
        current = self.dest
        for part in parts:
            current = current / part
            try:
                os.mkdir(current, 0o755)
            except FileExistsError:
                if current.is_symlink() or not current.is_dir():
                    raise UnpackRefused(f"{'/'.join(parts)!r} lies below a file of the "
                                        "archive; refused") from None
        return current

    def file(self, name: str, parts: list[str], stream: IO[bytes] | None,
             size: int, executable: bool) -> None:
        parent = self.folder(parts[:-1])
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(parent / parts[-1], flags, 0o755 if executable else 0o644)
        except FileExistsError:
            raise UnpackRefused(f"the archive holds {name!r} twice; refused") from None
        written = 0
        try:
            while stream is not None:
                chunk = stream.read(_CHUNK)
                if not chunk:
                    break
                written += len(chunk)
                if written > size:  # the header said less: a lie
                    raise UnpackRefused(f"the archive member {name!r} is larger than its "
                                        "header says; refused")
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
        finally:
            os.close(fd)


def unpack(data: bytes, dest: Path, *, hint: str = "",
           limits: TreeLimits = DEFAULT_LIMITS) -> int:
    """Unpack the archive ``data`` into ``dest`` (created, or an empty folder); the number
    of files written.

    :raises UnpackRefused: a member that is not a plain file or folder, an unsafe name, a cap
        passed, an archive that does not open. ``dest`` may then hold part of the archive:
        callers unpack into a staging folder they discard.
    """
    dest.mkdir(parents=True, exist_ok=True)
    writer = _Writer(dest, limits)
    files = 0
    kind = archive_kind(data, hint)
    try:
        if kind == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for info in archive.infolist():
                    parts = _check_name(info.filename, limits)
                    mode = (info.external_attr >> 16) & 0o170000
                    if info.is_dir():
                        writer.count(info.filename, 0)
                        writer.folder(parts)
                        continue
                    if mode not in (0, 0o100000) or info.flag_bits & 0x1:
                        raise UnpackRefused(f"the archive member {info.filename!r} is a link, "
                                            "a special file or encrypted; refused")
                    writer.count(info.filename, info.file_size)
                    if not parts:
                        continue
                    with archive.open(info) as stream:
                        writer.file(info.filename, parts, stream, info.file_size,
                                    bool((info.external_attr >> 16) & 0o111))
                    files += 1
            return files
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            for member in archive:
                parts = _check_name(member.name, limits)
                if member.isdir():
                    writer.count(member.name, 0)
                    writer.folder(parts)
                    continue
                if not member.isreg():
                    what = "a link" if member.issym() or member.islnk() else "a special file"
                    raise UnpackRefused(f"the archive member {member.name!r} is {what}; "
                                        "refused")
                writer.count(member.name, member.size)
                if not parts:
                    continue
                writer.file(member.name, parts, archive.extractfile(member), member.size,
                            bool(member.mode & 0o111))
                files += 1
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        if isinstance(exc, UnpackRefused):
            raise
        raise UnpackRefused(f"the archive does not open ({type(exc).__name__}); "
                            "refused") from None
    return files


__all__ = ["UnpackRefused", "archive_kind", "unpack"]
