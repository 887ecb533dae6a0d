"""Notice a change below a set of folders without stat-ing every file on every call.

A long-lived process (the MCP servers, or a program calling :mod:`lemon_core.skills` again and
again) answers each call from an in-memory catalog. Re-checking that catalog by stat-ing each
``SKILL.md`` (the catalog's identity check) costs about 45 ms for 10,000 skills, so it asks the
kernel instead: a
:class:`FolderWatcher` holds an inotify watch on every folder whose contents decide the
catalog (the roots, every group, every skill folder), and :meth:`FolderWatcher.changed` drains
the pending events without blocking — a few microseconds when nothing happened. The kernel
queues an event before the writing call returns, so a change made before a tool call is seen
by that call; no thread and no extra dependency (``watchfiles``) is needed.

Where inotify is missing (not Linux) or refuses a watch (the ``max_user_watches`` limit),
:func:`open_watcher` returns None and the caller falls back to the identity check on every
call: always correct, only slower.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import sys
from collections.abc import Iterable
from typing import Any

_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
# modify, attrib, close_write, moved_from, moved_to, create, delete, delete_self, move_self
_MASK = 0x2 | 0x4 | 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800
_IN_ONLYDIR = 0x01000000
_READ_SIZE = 64 * 1024


@functools.cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc


class FolderWatcher:
    """An inotify instance watching a fixed set of folders; see the module docstring."""

    def __init__(self, fd: int, count: int) -> None:
        self._fd = fd
        self.count = count

    def changed(self) -> bool:
        """Whether any event arrived since the last call (the queue is emptied)."""
        seen = False
        while True:
            try:
                data = os.read(self._fd, _READ_SIZE)
            except BlockingIOError:
                return seen
            except OSError:
                return True  # the watch is broken: say "changed" so the caller re-checks
            if not data:
                return seen
            seen = True

    def close(self, _close: Any = os.close) -> None:
        # os.close is bound at definition: at interpreter exit __del__ may run after the
        # module's globals (``os``) are gone
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            _close(fd)

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except OSError:
            pass


def open_watcher(folders: Iterable[str]) -> FolderWatcher | None:
    """A watcher on every folder given (a missing one is skipped), or None when the kernel
    cannot watch them all (no inotify, or a limit reached)."""
    libc = _libc()
    if libc is None:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    count = 0
    for folder in dict.fromkeys(folders):
        try:
            encoded = os.fsencode(folder)
        except (TypeError, ValueError):
            continue
        if b"\0" in encoded:
            continue
        if libc.inotify_add_watch(fd, encoded, _MASK | _IN_ONLYDIR) < 0:
            code = ctypes.get_errno()
            if code in (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP):
                continue  # gone or not a folder: the identity check after a scan covers it
            os.close(fd)
            return None  # ENOSPC (max_user_watches), ENOMEM: cannot watch them all
        count += 1
    return FolderWatcher(fd, count)


def _existing(path: str) -> str:
    """``path``, or its nearest existing ancestor (to notice it being created)."""
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            return path
        path = parent
    return path


def snapshot_folders(snapshot: object, aux_files: Iterable[object]) -> list[str]:
    """Every folder whose change could change ``snapshot`` (a catalog snapshot) or the
    statuses read from ``aux_files``; a missing folder is replaced by its nearest existing
    ancestor, so that its creation (a new root) is an event too."""
    folders = [_existing(path) for path, _ in snapshot.watched_dirs]  # type: ignore[attr-defined]
    folders += [entry.dir for entry in snapshot.entries]  # type: ignore[attr-defined]
    folders += [_existing(os.path.dirname(str(path))) for path in aux_files]
    return folders


__all__ = ["FolderWatcher", "open_watcher", "snapshot_folders"]
