"""A bounded, link-safe scan of one skill folder and the bundle hash of what it holds.

The install pipeline scans a staged skill with :func:`scan_tree` before anything else looks at
it, and the audit host reads the same entries, so "what is in this bundle" has one answer.
The scan never follows a link, never opens anything but a regular file, and stops at the caps
of :class:`TreeLimits`; everything it refuses is a :class:`TreeProblem` with a stable code.

:func:`bundle_hash` is the identity of a bundle: SHA-256 over the sorted relative paths, the
entry kinds (file or link), the executable bit and the bytes (a link's target text). Folders do
not count (git does not keep empty ones), nor do permission bits beyond "executable or not", so
the same content installed from git, a tarball or a local copy hashes the same under any umask.
"""

from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path

import attrs

from lemon_core.fsio.names import file_name_problem
from lemon_core.fsio.read import FileProblem, open_regular, read_up_to

HASH_PREFIX = "sha256:"


@attrs.frozen
class TreeLimits:
    """The caps a skill folder must stay within (entries counts files, links and folders)."""

    max_entries: int = 2_000
    max_file_bytes: int = 10 * 1024 * 1024
    max_total_bytes: int = 50 * 1024 * 1024
    max_depth: int = 16


DEFAULT_LIMITS = TreeLimits()


@attrs.frozen
class TreeEntry:
    """One thing in the folder. ``path`` is POSIX and relative; ``kind`` is ``file``, ``dir``,
    ``symlink``, ``fifo``, ``device``, ``socket`` or ``other``; ``mode`` the permission bits;
    ``link_target`` the text of a link and ``inside`` whether it resolves inside the root."""

    path: str
    kind: str
    mode: int
    size: int
    nlink: int = 1
    link_target: str | None = None
    inside: bool | None = None

    @property
    def executable(self) -> bool:
        return bool(self.mode & 0o111) and self.kind == "file"


@attrs.frozen
class TreeProblem:
    """Why the folder is not a safe bundle. Codes: ``escaping_link``, ``hard_link``,
    ``special_file``, ``too_many_entries``, ``file_too_large``, ``tree_too_large``,
    ``too_deep``, ``unsafe_name``, ``name_collision``, ``unreadable``."""

    path: str
    code: str
    message: str


@attrs.frozen
class TreeScan:
    root: Path
    entries: tuple[TreeEntry, ...]
    problems: tuple[TreeProblem, ...]
    #: False when a cap stopped the scan before it saw everything.
    complete: bool = True

    @property
    def files(self) -> tuple[TreeEntry, ...]:
        return tuple(e for e in self.entries if e.kind == "file")

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries if e.kind == "file")


_SPECIAL = {stat.S_IFIFO: "fifo", stat.S_IFCHR: "device", stat.S_IFBLK: "device",
            stat.S_IFSOCK: "socket"}


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    return _SPECIAL.get(stat.S_IFMT(mode), "other")


def _inside(real_root: str, link: str) -> bool:
    resolved = os.path.realpath(link)
    return resolved == real_root or resolved.startswith(real_root.rstrip(os.sep) + os.sep)


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a file name in a skill (it must mean the same file on every
    system lemon runs on), or None: the one portable-name rule of :mod:`lemon_core.fsio.names`."""
    return file_name_problem(name)


class _Scanner:
    def __init__(self, root: Path, limits: TreeLimits) -> None:
        self.root = root
        self.real_root = os.path.realpath(root)
        self.limits = limits
        self.entries: list[TreeEntry] = []
        self.problems: list[TreeProblem] = []
        self.total = 0
        self.complete = True
        self.full = False
        self.folded: dict[str, str] = {}

    def problem(self, path: str, code: str, message: str) -> None:
        self.problems.append(TreeProblem(path, code, message))

    def name_ok(self, rel: str, name: str) -> bool:
        why = name_problem(name)
        if why is not None:
            self.problem(rel, "unsafe_name", f"unsafe file name: {why}")
            return False
        folded = unicodedata.normalize("NFC", rel).casefold()
        twin = self.folded.setdefault(folded, rel)
        if twin != rel:
            self.problem(rel, "name_collision",
                         f"collides with {twin!r} on case-insensitive or normalising file systems")
        return True

    def add(self, rel: str, info: os.stat_result, full: str) -> str:
        kind = _kind(info.st_mode)
        entry = TreeEntry(rel, kind, stat.S_IMODE(info.st_mode), info.st_size, info.st_nlink)
        if kind == "symlink":
            target = os.readlink(full)
            inside = _inside(self.real_root, full)
            entry = attrs.evolve(entry, link_target=target, inside=inside)
            if not inside:
                self.problem(rel, "escaping_link", "a symbolic link that leads out of the skill")
        elif kind == "file":
            if info.st_nlink > 1:
                self.problem(rel, "hard_link", "a hard link (the same file is linked elsewhere)")
            if info.st_size > self.limits.max_file_bytes:
                self.problem(rel, "file_too_large",
                             f"{info.st_size} bytes; a skill file may hold at most "
                             f"{self.limits.max_file_bytes}")
            self.total += info.st_size
        elif kind != "dir":
            self.problem(rel, "special_file", f"a {kind}, not a regular file, folder or link")
        self.entries.append(entry)
        return kind

    def walk(self, folder: str, prefix: str, depth: int) -> None:
        if depth > self.limits.max_depth:
            self.problem(prefix.rstrip("/"), "too_deep",
                         f"folders nest deeper than {self.limits.max_depth} levels")
            self.complete = False
            return
        try:
            with os.scandir(folder) as listing:
                children = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            self.problem(prefix.rstrip("/") or ".", "unreadable",
                         f"cannot list the folder: {exc.strerror or type(exc).__name__}")
            self.complete = False
            return
        for child in children:
            if self.full:
                return
            if len(self.entries) >= self.limits.max_entries:
                self.problem(prefix.rstrip("/") or ".", "too_many_entries",
                             f"more than {self.limits.max_entries} files and folders")
                self.complete = False
                self.full = True
                return
            rel = prefix + child.name
            if not self.name_ok(rel, child.name):
                continue
            try:
                info = child.stat(follow_symlinks=False)
            except OSError as exc:
                self.problem(rel, "unreadable", exc.strerror or type(exc).__name__)
                continue
            if self.add(rel, info, child.path) == "dir":
                self.walk(child.path, rel + "/", depth + 1)


def scan_tree(root: Path | str, limits: TreeLimits = DEFAULT_LIMITS) -> TreeScan:
    """Every entry under ``root`` (links not followed) and every reason it is not a safe
    bundle. A total over ``max_total_bytes`` is one ``tree_too_large`` problem."""
    scanner = _Scanner(Path(root), limits)
    scanner.walk(os.fspath(root), "", 1)
    if scanner.total > limits.max_total_bytes:
        scanner.problem(".", "tree_too_large",
                        f"{scanner.total} bytes in all; a skill may hold at most "
                        f"{limits.max_total_bytes}")
    return TreeScan(Path(root), tuple(scanner.entries), tuple(scanner.problems),
                    scanner.complete)


def _file_bytes(path: Path, limit: int) -> bytes:
    try:
        fd, info = open_regular(path, nofollow=True)
    except FileProblem:
        raise
    except (OSError, ValueError) as exc:  # gone, or swapped for a link (ELOOP)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "invalid path"
        raise FileProblem("read", f"{path.name}: {why}; not hashed") from None
    try:
        if info.st_size > limit:
            raise FileProblem("read", f"larger than {limit} bytes; not hashed", "too_large")
        return read_up_to(fd, limit + 1, info.st_size)
    finally:
        os.close(fd)


def bundle_hash(root: Path | str, entries: Iterable[TreeEntry],
                limits: TreeLimits = DEFAULT_LIMITS,
                digests: dict[str, str] | None = None) -> str:
    """``sha256:<hex>`` over the files and links of ``entries`` (from :func:`scan_tree` of
    ``root``), read again now, so the hash is of what is on disk at this moment. ``digests``,
    when given, is filled with each path's ``<kind>:<sha256 hex>`` (kind ``F`` a file, ``X``
    an executable file, ``L`` a link, hashed over its target text): what lets lemon name the
    files a person edited after the install.

    :raises FileProblem: when a file cannot be read as a regular file (it changed under us).
    """
    digest = hashlib.sha256()
    base = Path(root)
    for entry in sorted((e for e in entries if e.kind in ("file", "symlink")),
                        key=lambda e: e.path.encode("utf-8", "surrogateescape")):
        if entry.kind == "symlink":
            kind, data = b"L", os.fsencode(entry.link_target or "")
        else:
            kind = b"X" if entry.executable else b"F"
            data = _file_bytes(base / entry.path, limits.max_file_bytes)
        name = entry.path.encode("utf-8", "surrogateescape")
        digest.update(kind + len(name).to_bytes(4, "big") + name
                      + len(data).to_bytes(8, "big"))
        digest.update(data)
        if digests is not None:
            digests[entry.path] = f"{kind.decode()}:{hashlib.sha256(data).hexdigest()}"
    return HASH_PREFIX + digest.hexdigest()


__all__ = ["DEFAULT_LIMITS", "HASH_PREFIX", "TreeEntry", "TreeLimits", "TreeProblem",
           "TreeScan", "bundle_hash", "name_problem", "scan_tree"]
