"""Writing one commit's tree (or a folder of it) into an empty staging folder.

The tree is planned first and written after: every name is checked (no ``.git`` in any
spelling, no ``.``/``..``/``/``/NUL), submodules become notes (nothing is fetched for them),
Git LFS pointer files are written as they are (the install refuses each skill that holds one,
see :data:`LFS_REFUSAL` and :func:`lemon_core.install.checks.check_lfs`, so one skill's pointer
never stops the others of the tree), and an unknown entry mode refuses the fetch. Only the objects of that tree are read, and each by its header first
(:mod:`lemon_core.source_kit.objects`): a file over the per-file cap, or files over the total
cap together, refuse the fetch before anything is written, and each file is then streamed to
disk in bounded chunks, so memory stays flat whatever the repository holds. Files are created
relative to folder descriptors with ``O_NOFOLLOW | O_EXCL``, so nothing is ever written through
a link or over an entry already written. No ``.git`` folder is made and nothing fetched is run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import attrs

from lemon_core.source_kit.lfs import LFS_MAGIC, LFS_MAX_POINTER
from lemon_core.source_kit.limits import (
    DEFAULT_LIMITS,
    FetchLimits,
    FetchTooLarge,
    size_text,
)
from lemon_core.source_kit.objects import copy_blob, load, object_size, read_small
from lemon_core.source_kit.transport import GitSourceError
from lemon_core.text import escape

#: The longest link target written (PATH_MAX on Linux).
MAX_LINK_BYTES = 4096

_DIR, _FILE, _EXEC, _LINK, _GITLINK = 0o040000, 0o100644, 0o100755, 0o120000, 0o160000
_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
    getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


@attrs.frozen
class PlannedEntry:
    path: tuple[str, ...]
    mode: int
    sha: bytes
    size: int = 0


@attrs.frozen
class Checkout:
    files: int
    bytes: int
    notes: tuple[str, ...]


def _is_git_alias(name: str) -> bool:
    """``.git`` however a filesystem may spell it (case, trailing dots or spaces, 8.3 name)."""
    folded = name.rstrip(". ").lower()
    return folded == ".git" or folded == "git~1"


def _check_name(raw: bytes, where: str) -> str:
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GitSourceError(f"the repository holds a name that is not UTF-8 under "
                             f"{escape(where or '/')}: refusing it") from None
    if name in ("", ".", "..") or "/" in name or "\x00" in name:
        raise GitSourceError(f"the repository holds an invalid name {escape(name)!s} under "
                             f"{escape(where or '/')}: refusing it")
    if _is_git_alias(name):
        raise GitSourceError(f"the repository holds a {escape(name)} entry at "
                             f"{escape(where + '/' + name if where else name)}: refusing it "
                             "(a .git folder is never installed)")
    return name


def _tree(store: Any, sha: bytes, limits: FetchLimits, where: str) -> Any:
    from dulwich.objects import Tree

    tree = load(store, sha, limits.max_object_bytes,
                f"the folder {escape(where or '/')} of the repository")
    if not isinstance(tree, Tree):
        raise GitSourceError(f"the repository's {escape(where or '/')} is no folder: refusing it")
    return tree


def find_tree(store: Any, tree_id: bytes, subdirectory: str | None, commit: str,
              limits: FetchLimits = DEFAULT_LIMITS) -> bytes:
    """The id of the tree at ``subdirectory`` (None: the root) of ``tree_id``; only the
    trees on the way are read."""
    if not subdirectory:
        return tree_id
    current = tree_id
    walked: list[str] = []
    for part in subdirectory.split("/"):
        tree = _tree(store, current, limits, "/".join(walked))
        walked.append(part)
        match = next(((mode, sha) for name, mode, sha in tree.iteritems()
                      if name == part.encode("utf-8")), None)
        if match is None or not stat.S_ISDIR(match[0]):
            what = "no folder" if match is None else "a file, not a folder,"
            raise GitSourceError(f"commit {commit[:12]} has {what} at "
                                 f"{escape('/'.join(walked))}: check #subdirectory=")
        current = match[1]
    return current


def folder_ids(store: Any, tree_id: bytes, limits: FetchLimits = DEFAULT_LIMITS,
               root: str = "") -> dict[str, str]:
    """The git tree id of ``tree_id`` (``""``) and of every folder below it (``a/b``), from
    the trees alone (no blob is read): what an install records as each skill folder's
    ``tree_id``. At most ``max_entries`` folders are listed."""
    out: dict[str, str] = {}
    stack: list[tuple[str, bytes]] = [("", tree_id)]
    while stack and len(out) < limits.max_entries:
        path, tid = stack.pop()
        out[path] = tid.decode("ascii")
        where = "/".join(p for p in (root, path) if p)
        for raw, mode, sha in _tree(store, tid, limits, where).iteritems():
            if stat.S_ISDIR(mode):
                name = raw.decode("utf-8", "replace")
                stack.append((f"{path}/{name}" if path else name, sha))
    return out


def plan(store: Any, tree_id: bytes, limits: FetchLimits = DEFAULT_LIMITS, root: str = "",
         ) -> tuple[list[PlannedEntry], list[str], list[str]]:
    """(entries to write, submodule notes, LFS pointer paths) of the tree, depth first, from
    the trees and the blobs' headers alone; more than ``max_entries`` entries, a file over
    ``max_object_bytes`` or files over ``max_total_bytes`` in all refuse the tree (``root``,
    the folder's path in the repository, names the file in such a message)."""
    max_entries = limits.max_entries
    entries: list[PlannedEntry] = []
    submodules: list[str] = []
    lfs: list[str] = []
    total = 0
    stack: list[tuple[tuple[str, ...], bytes]] = [((), tree_id)]
    while stack:
        prefix, tid = stack.pop()
        where = "/".join(prefix)
        for raw, mode, sha in _tree(store, tid, limits, where).iteritems():
            if len(entries) >= max_entries:
                raise FetchTooLarge(f"the tree holds more than {max_entries:,} files and "
                                     "folders: refusing it (pick one skill's folder with "
                                     "#subdirectory=)")
            name = _check_name(raw, where)
            path = (*prefix, name)
            shown = escape("/".join(path))
            if mode == _GITLINK:
                submodules.append(f"submodule {shown} (commit {sha.decode('ascii')[:12]}) was "
                                  "not fetched: lemon never fetches submodules")
                continue
            if stat.S_ISDIR(mode):
                entries.append(PlannedEntry(path, _DIR, sha))
                stack.append((path, sha))
                continue
            if mode not in (_FILE, _EXEC, _LINK, 0o100664):
                raise GitSourceError(f"the repository holds {shown} with unknown mode "
                                     f"{mode:o}: refusing it")
            full = escape("/".join((root, *path)) if root else "/".join(path))
            try:
                _, size = object_size(store, sha)
            except KeyError:
                raise GitSourceError(f"the repository lacks the file {full} (object "
                                     f"{sha.decode('ascii')[:12]}): refusing it") from None
            cap = MAX_LINK_BYTES if mode == _LINK else limits.max_object_bytes
            if size > cap:
                what = "the link" if mode == _LINK else "the file"
                raise FetchTooLarge(f"{what} {full} is {size_text(size)} (over the "
                                    f"{size_text(cap)} a fetched file may hold): refusing it")
            total += size
            if total > limits.max_total_bytes:
                raise FetchTooLarge(f"the files to write come to more than "
                                    f"{size_text(limits.max_total_bytes)}: refusing them (pick "
                                    "one skill's folder with #subdirectory=)")
            if mode != _LINK and size <= LFS_MAX_POINTER and read_small(
                    store, sha, LFS_MAX_POINTER, shown, limits.max_object_bytes
            ).startswith(LFS_MAGIC):
                lfs.append("/".join(path))
            entries.append(PlannedEntry(path, mode, sha, size))
    return entries, submodules, lfs


def write_tree(store: Any, tree_id: bytes, dest: Path, *,
               limits: FetchLimits = DEFAULT_LIMITS, root: str = "") -> Checkout:
    """Write the tree ``tree_id`` into the empty folder ``dest``: planned and measured
    first, then each file streamed under the caps of ``limits``."""
    entries, submodules, _ = plan(store, tree_id, limits, root)
    top = os.open(dest, _DIR_FLAGS)
    dirs: dict[tuple[str, ...], int] = {(): top}
    files = total = 0
    try:
        for entry in sorted(entries, key=lambda e: e.path):
            parent = dirs[entry.path[:-1]]
            name = entry.path[-1]
            if entry.mode == _DIR:
                os.mkdir(name, 0o755, dir_fd=parent)
                dirs[entry.path] = os.open(name, _DIR_FLAGS, dir_fd=parent)
                continue
            shown = escape("/".join((root, *entry.path)) if root else "/".join(entry.path))
            if entry.mode == _LINK:
                data = read_small(store, entry.sha, MAX_LINK_BYTES, f"the link {shown}",
                                  limits.max_object_bytes)
                os.symlink(os.fsdecode(data), name, dir_fd=parent)
                written = len(data)
            else:
                fd = os.open(name, _OPEN_FLAGS, 0o755 if entry.mode == _EXEC else 0o644,
                             dir_fd=parent)
                try:
                    written = copy_blob(store, entry.sha, fd, min(entry.size,
                                                                  limits.max_object_bytes),
                                        f"the file {shown}", limits.max_object_bytes)
                finally:
                    os.close(fd)
            files += 1
            total += written
    except FileExistsError:
        raise GitSourceError("the repository's tree names one entry twice: refusing it") from None
    except (OSError, ValueError) as exc:
        raise GitSourceError(f"cannot write the fetched files into {escape(dest)}: "
                             f"{escape(exc)}") from None
    finally:
        for fd in dirs.values():
            os.close(fd)
    return Checkout(files=files, bytes=total, notes=tuple(submodules))
