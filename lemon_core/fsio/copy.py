"""A bounded, link-safe copy of a folder: how the ``local`` and ``builtin`` sources stage a skill.

:func:`copy_tree` copies regular files (through the safe reader), folders and symbolic links
(as links: their target text, never followed, so a link to ``/etc/passwd`` copies nothing of
it; the install pipeline's :func:`~lemon_core.fsio.tree.scan_tree` then refuses a link that
leaves the skill). It refuses, naming the path, what cannot be copied faithfully or safely: a
FIFO, device or socket (never opened), a hard link (its other names would be lost), an unsafe
file name, and anything past the caps of :class:`~lemon_core.fsio.tree.TreeLimits` (entries,
file size, total size, depth), checked from ``lstat`` before a byte is read and again by what
is read, as each file is streamed 1 MiB at a time. Names in ``skip``
(``.git`` by default) are left out at every level. Only the executable bit is carried over.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

import attrs

from lemon_core.errors import LemonError
from lemon_core.fsio.read import FileProblem, describe, open_regular
from lemon_core.fsio.tree import DEFAULT_LIMITS, TreeLimits
from lemon_core.text import unsafe_reason

#: Left out of every copy: a repository's own data is never part of a skill.
DEFAULT_SKIP = (".git",)
#: Files are copied this much at a time: memory stays flat whatever their size.
_CHUNK = 1024 * 1024


class CopyRefused(LemonError):
    """The folder cannot be copied as a skill; ``path`` is relative to the folder copied."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason


@attrs.frozen
class CopyReport:
    files: int
    bytes: int
    links: int
    #: Relative paths left out because their name is in ``skip``.
    skipped: tuple[str, ...] = ()


_SPECIAL = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
            stat.S_IFSOCK: "a socket"}


class _Copier:
    def __init__(self, limits: TreeLimits, skip: frozenset[str]) -> None:
        self.limits = limits
        self.skip = skip
        self.entries = 0
        self.files = 0
        self.links = 0
        self.total = 0
        self.skipped: list[str] = []

    def copy(self, src: str, dest: str, prefix: str, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise CopyRefused(prefix.rstrip("/"),
                              f"folders nest deeper than {self.limits.max_depth} levels")
        try:
            with os.scandir(src) as listing:
                children = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            raise CopyRefused(prefix.rstrip("/") or ".",
                              f"cannot list the folder: {exc.strerror or type(exc).__name__}"
                              ) from None
        for child in children:
            rel = prefix + child.name
            if child.name in self.skip:
                self.skipped.append(rel)
                continue
            self.entries += 1
            if self.entries > self.limits.max_entries:
                raise CopyRefused(prefix.rstrip("/") or ".",
                                  f"more than {self.limits.max_entries} files and folders")
            reason = unsafe_reason(child.name)
            if reason is not None or "\\" in child.name:
                raise CopyRefused(rel, f"unsafe file name: {reason[1] if reason else 'a backslash'}")
            self.one(child, os.path.join(dest, child.name), rel, depth)

    def one(self, child: os.DirEntry[str], target: str, rel: str, depth: int) -> None:
        try:
            info = child.stat(follow_symlinks=False)
        except OSError as exc:
            raise CopyRefused(rel, exc.strerror or type(exc).__name__) from None
        mode = info.st_mode
        if stat.S_ISDIR(mode):
            os.mkdir(target, 0o755)
            self.copy(child.path, target, rel + "/", depth + 1)
        elif stat.S_ISLNK(mode):
            os.symlink(os.readlink(child.path), target)
            self.links += 1
        elif stat.S_ISREG(mode):
            self.file(child.path, target, rel, info)
        else:
            kind = _SPECIAL.get(stat.S_IFMT(mode), "not a regular file")
            raise CopyRefused(rel, f"{kind}; a skill holds only files, folders and links")

    def _stream(self, fd: int, out: int, rel: str, limit: int) -> None:
        """Copy ``fd`` into ``out`` 1 MiB at a time, held to ``limit`` and the total cap by
        what is read (the file may grow after its ``lstat``)."""
        copied = 0
        while chunk := os.read(fd, _CHUNK):
            copied += len(chunk)
            if copied > limit:
                raise CopyRefused(rel, f"more than {limit} bytes; a skill file may hold at "
                                       f"most {limit}")
            self.total += len(chunk)
            if self.total > self.limits.max_total_bytes:  # it grew since the lstat
                raise CopyRefused(".", f"more than {self.limits.max_total_bytes} bytes in all")
            view = memoryview(chunk)
            while view:
                view = view[os.write(out, view):]

    def file(self, path: str, target: str, rel: str, info: os.stat_result) -> None:
        if info.st_nlink > 1:
            raise CopyRefused(rel, "a hard link (the same file has another name); copy it "
                                   "to a file of its own")
        limit = self.limits.max_file_bytes
        if info.st_size > limit:
            raise CopyRefused(rel, f"{info.st_size} bytes; a skill file may hold at most {limit}")
        if self.total + info.st_size > self.limits.max_total_bytes:
            raise CopyRefused(".", f"more than {self.limits.max_total_bytes} bytes in all")
        try:
            fd, _ = open_regular(path, nofollow=True)
        except FileProblem as exc:
            raise CopyRefused(rel, exc.message) from None
        except OSError as exc:  # changed since its lstat: gone, or now a link or a socket
            why = {errno.ENOENT: "does not exist", errno.ELOOP: "a symbolic link; not followed",
                   errno.ENXIO: "a socket or a device, not a regular file"}.get(
                       exc.errno or 0, f"cannot open the file: {describe(exc)}")
            raise CopyRefused(rel, why) from None
        executable = bool(info.st_mode & 0o111)
        try:
            out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                          getattr(os, "O_NOFOLLOW", 0), 0o755 if executable else 0o644)
            try:
                self._stream(fd, out, rel, limit)
            finally:
                os.close(out)
        finally:
            os.close(fd)
        self.files += 1


def copy_tree(src: Path | str, dest: Path | str, *, limits: TreeLimits = DEFAULT_LIMITS,
              skip: Iterable[str] = DEFAULT_SKIP) -> CopyReport:
    """Copy the folder ``src`` (followed if it is itself a link: the caller named it) into
    ``dest``, which must be an empty folder or not exist yet.

    :raises CopyRefused: naming the first entry that cannot be copied; what was copied
        before it stays in ``dest`` for the caller to delete (a staging folder).
    """
    src_path, dest_path = os.fspath(src), os.fspath(dest)
    if not os.path.isdir(src_path):
        raise CopyRefused("", f"{src_path} is not a folder")
    os.makedirs(dest_path, exist_ok=True)
    if os.listdir(dest_path):
        raise CopyRefused("", f"{dest_path} is not empty")
    copier = _Copier(limits, frozenset(skip))
    copier.copy(src_path, dest_path, "", 1)
    return CopyReport(copier.files, copier.total, copier.links, tuple(copier.skipped))


__all__ = ["DEFAULT_SKIP", "CopyRefused", "CopyReport", "copy_tree"]
