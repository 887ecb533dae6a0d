"""Keep an in-memory catalog current: a kernel watch when there is one, the stat check if not.

:class:`Freshness` wraps "build a snapshot" and "is it still current". Each tool call asks
:meth:`Freshness.current`: with a :class:`~lemon_core.catalog.watch.FolderWatcher` that
is one non-blocking read of the pending events (microseconds); an event triggers a rebuild
(which re-reads only what changed). After every build the watch is set up again on the new
folders and the snapshot's own stat check runs once, so a change made while the watch was being
set up is not lost. Without a watcher, the stat check runs on every call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from lemon_core.catalog.watch import FolderWatcher, open_watcher


class _Snapshot(Protocol):
    def unchanged(self) -> bool: ...


S = TypeVar("S", bound=_Snapshot)


class Freshness(Generic[S]):
    def __init__(self, build: Callable[[S | None], S],
                 folders: Callable[[S], Iterable[str]], *, watch: bool = True) -> None:
        self._build = build
        self._folders = folders
        self._watch = watch
        self._watcher: FolderWatcher | None = None
        self._lock = threading.Lock()
        self.rebuilds = 0
        self._snapshot = self._settle(build(None))

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def _settle(self, snapshot: S) -> S:
        for _ in range(3):
            if self._watcher is not None:
                self._watcher.close()
            self._watcher = open_watcher(self._folders(snapshot)) if self._watch else None
            if snapshot.unchanged():
                return snapshot
            snapshot = self._build(snapshot)
        return snapshot

    def current(self) -> S:
        """The snapshot, rebuilt first when something changed on disk."""
        with self._lock:
            watcher = self._watcher
            if watcher is not None:
                stale = watcher.changed()
            else:
                stale = not self._snapshot.unchanged()
            if stale:
                self.rebuilds += 1
                self._snapshot = self._settle(self._build(self._snapshot))
            return self._snapshot

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None


__all__ = ["Freshness"]
