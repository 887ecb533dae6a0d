"""The catalog: a snapshot of every discovered skill, kept fresh by a content-identity check.

A snapshot remembers what it was built from: each folder whose listing mattered (with its
mtime), each SKILL.md (mtime, size, inode), and the settings and lock files. A later call stats
exactly those paths and rebuilds only when one changed, re-parsing only the changed SKILL.md
files. Checks are coalesced to at most one per :data:`CHECK_INTERVAL` seconds; ``refresh=True``
forces a rebuild. Files changed within :data:`RACY_WINDOW_NS` of a scan are re-read next time,
since a second write in the same timestamp tick would be invisible to the stat check.

A long-lived process pays that stat pass on every call (about 45 ms for 10,000 skills), so the
second time one :class:`Catalog` is asked for a snapshot it opens a kernel watch on the
snapshot's folders (:mod:`lemon_core.catalog.watch`); from then on a call with no pending event
returns the snapshot without a stat, an event forces the check. A one-shot CLI call never asks
twice, so never pays for a watch; without inotify the stat check runs as before.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.walk import (
    FoundSkill,
    dir_signature,
    file_signature,
    walk_roots,
)
from lemon_core.models import Diagnostic, SkillEntry, SkillManifest

CHECK_INTERVAL = 0.05
RACY_WINDOW_NS = 2_000_000_000

Loader = Callable[[str, str], "tuple[SkillManifest | None, tuple[Diagnostic, ...]]"]


@attrs.frozen
class ParsedSkill:
    """One SKILL.md as parsed at one file signature."""

    found: FoundSkill
    manifest: SkillManifest | None
    diagnostics: tuple[Diagnostic, ...]


@attrs.frozen
class CatalogSnapshot:
    roots: tuple[SkillRoot, ...]
    parsed: tuple[ParsedSkill, ...]
    walk_diagnostics: tuple[Diagnostic, ...]
    watched_dirs: tuple[tuple[str, int | None], ...]
    aux_files: tuple[tuple[str, tuple[int, int, int] | None], ...]
    taken_at_ns: int
    entries: tuple[SkillEntry, ...] = attrs.field(init=False)
    diagnostics: tuple[Diagnostic, ...] = attrs.field(init=False)
    #: True when something changed so close to the scan that the stat check cannot tell.
    racy: bool = attrs.field(init=False)

    @entries.default
    def _entries(self) -> tuple[SkillEntry, ...]:
        return build_entries(self.parsed)

    @diagnostics.default
    def _diagnostics(self) -> tuple[Diagnostic, ...]:
        return self.walk_diagnostics + tuple(d for p in self.parsed for d in p.diagnostics)

    @racy.default
    def _racy(self) -> bool:
        limit = self.taken_at_ns - RACY_WINDOW_NS
        return any(m is not None and m >= limit for _, m in self.watched_dirs) or any(
            p.found.signature[0] >= limit for p in self.parsed
        )

    def unchanged(self) -> bool:
        """Stat every recorded path: True when none differs from the snapshot."""
        stat = os.stat
        for path, mtime in self.watched_dirs:
            if dir_signature(path) != mtime:
                return False
        for parsed in self.parsed:
            found = parsed.found
            try:
                st = stat(found.skill_md)
            except OSError:
                return False
            if (st.st_mtime_ns, st.st_size, st.st_ino) != found.signature:
                return False
        return all(file_signature(path) == sig for path, sig in self.aux_files)

    def by_key(self) -> Mapping[str, SkillEntry]:
        """Key -> entry (made once per snapshot: :attr:`keyed`)."""
        return self.keyed

    @functools.cached_property
    def keyed(self) -> Mapping[str, SkillEntry]:
        """Key -> entry, made the first time it is asked for and kept with the snapshot."""
        return {entry.key: entry for entry in self.entries}

    @functools.cached_property
    def programs(self) -> tuple[str, ...]:
        """Every program some entry requires (bins and tools), each once, sorted."""
        names = {p for e in self.entries for p in (*e.manifest.requires_bins,
                                                   *e.manifest.requires_tools)}
        return tuple(sorted(names))


def same_folder(a: str, b: str) -> bool:
    """Whether two skill folders are one (a link in an agent root to a skill lemon lists
    already, as ``lemon skill install --agent`` places): one real path."""
    if a == b:
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def build_entries(parsed: Iterable[ParsedSkill]) -> tuple[SkillEntry, ...]:
    """Precedence: the first loadable skill for a key wins and lists the ones it shadows. A
    later folder whose real path is the winner's or a shadowed one's (a link to it) is that
    same skill: it is neither a second entry nor shadowed again."""
    winners: dict[str, tuple[ParsedSkill, list[str]]] = {}
    for item in parsed:
        if item.manifest is None:
            continue
        key = item.found.key
        if key in winners:
            winner, shadowed = winners[key]
            folders = (winner.found.dir, *(os.path.dirname(p) for p in shadowed))
            if not any(same_folder(f, item.found.dir) for f in folders):
                shadowed.append(item.found.skill_md)
        else:
            winners[key] = (item, [])
    entries = []
    for key in sorted(winners):
        item, shadowed = winners[key]
        found = item.found
        entries.append(SkillEntry(key, found.root.scope, str(found.root.path), found.dir,
                                  found.skill_md, item.manifest, tuple(shadowed)))
    return tuple(entries)


def default_loader(path: str, key: str) -> tuple[SkillManifest | None, tuple[Diagnostic, ...]]:
    from lemon_core.manifest.load import load_manifest

    result = load_manifest(path, key=key)
    return result.manifest, result.diagnostics


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Hold off the cyclic garbage collector while building many small objects that all stay
    alive (a scan, a cache load): it would only walk them again and again, for nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def scan(
    roots: tuple[SkillRoot, ...],
    aux_files: tuple[Path, ...],
    *,
    previous: CatalogSnapshot | None = None,
    loader: Loader = default_loader,
) -> CatalogSnapshot:
    """Walk the roots and parse what changed since ``previous`` (everything without one)."""
    with paused_gc():
        return _scan(roots, aux_files, previous, loader)


def _scan(
    roots: tuple[SkillRoot, ...],
    aux_files: tuple[Path, ...],
    previous: CatalogSnapshot | None,
    loader: Loader,
) -> CatalogSnapshot:
    taken_at_ns = time.time_ns()
    reusable: dict[tuple[str, tuple[int, int, int]], ParsedSkill] = {}
    if previous is not None:
        limit = previous.taken_at_ns - RACY_WINDOW_NS
        reusable = {
            (p.found.skill_md, p.found.signature): p
            for p in previous.parsed if p.found.signature[0] < limit
        }
    walked = walk_roots(list(roots))
    parsed = []
    for found in walked.found:
        old = reusable.get((found.skill_md, found.signature))
        if old is not None and old.found.key == found.key:
            parsed.append(attrs.evolve(old, found=found))
            continue
        manifest, diagnostics = loader(found.skill_md, found.key)
        parsed.append(ParsedSkill(found, manifest, diagnostics))
    aux = tuple((str(path), file_signature(str(path))) for path in aux_files)
    return CatalogSnapshot(roots, tuple(parsed), walked.diagnostics, walked.watched_dirs, aux,
                           taken_at_ns)


class Catalog:
    """A self-refreshing snapshot of the skills under ``roots``; safe to share across threads.

    ``store`` (optional) persists snapshots between processes (see
    :mod:`lemon_core.catalog.cache`).
    """

    def __init__(
        self,
        roots: Iterable[SkillRoot],
        aux_files: Iterable[Path] = (),
        *,
        store: object | None = None,
        loader: Loader = default_loader,
        watch: bool = True,
    ) -> None:
        self.roots = tuple(roots)
        self.aux_files = tuple(aux_files)
        self._store = store
        self._loader = loader
        self._snapshot: CatalogSnapshot | None = None
        self._checked_at = float("-inf")
        self._stale = False
        self._lock = threading.Lock()
        #: Open a kernel watch from the second :meth:`snapshot` on (False: never).
        self.watch = watch
        self._asked = 0
        self._watcher: Any = None
        self._watched: CatalogSnapshot | None = None
        self._watcher_for: CatalogSnapshot | None = None

    def snapshot(self, *, refresh: bool = False) -> CatalogSnapshot:
        with self._lock:
            refresh = refresh or self._stale
            now = time.monotonic()
            current = self._snapshot
            if current is None and self._store is not None and not refresh:
                current = self._store.load(self.roots, self.aux_files)
            self._asked += 1
            if current is not None and not refresh:
                watcher = self._watcher if self._watcher_for is current else None
                if watcher is not None and watcher.changed():
                    self._watched = None  # an event: run the check now, whatever the interval
                elif watcher is not None and self._watched is current:
                    return current  # no event since the watch vouched for ``current``
                elif self._snapshot is current and now - self._checked_at < CHECK_INTERVAL:
                    if self._asked == 2:
                        self._rewatch(current)  # asked again: a long-lived process
                    return current
                if not current.racy and current.unchanged():
                    self._snapshot, self._checked_at = current, now
                    self._rewatch(current)
                    return current
            previous = None if refresh else current
            fresh = scan(self.roots, self.aux_files, previous=previous, loader=self._loader)
            self._snapshot, self._checked_at, self._stale = fresh, time.monotonic(), False
            if self._store is not None:
                self._store.save(fresh)
            self._rewatch(fresh)
            return fresh

    def _rewatch(self, snapshot: CatalogSnapshot) -> None:
        """From the second call on, watch ``snapshot``'s folders; the watch vouches for it only
        when the stat check, run once after the watch is set up, still finds it current (so a
        change made meanwhile is not lost) and it is not racy (a same-tick write before the
        watch existed would be invisible to both)."""
        self._watched = None
        if not self.watch or self._asked < 2:
            return
        if self._watcher is None or self._watcher_for is not snapshot:
            from lemon_core.catalog.watch import open_watcher, snapshot_folders

            if self._watcher is not None:
                self._watcher.close()
            self._watcher = open_watcher(snapshot_folders(snapshot, self.aux_files))
            self._watcher_for = snapshot if self._watcher is not None else None
            if self._watcher is None:
                self.watch = False  # no inotify, or a limit reached: the stat check, as before
                return
        # a racy snapshot keeps the watch (an event still forces the check) but not the vouch
        if not snapshot.racy and snapshot.unchanged():
            self._watched = snapshot

    @property
    def watching(self) -> bool:
        """Whether a kernel watch currently vouches for the snapshot."""
        return self._watcher is not None and self._watched is not None

    def close(self) -> None:
        """Drop the kernel watch (the next calls use the stat check until one is set up)."""
        with self._lock:
            self._watched = self._watcher_for = None
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None

    def refresh(self) -> CatalogSnapshot:
        return self.snapshot(refresh=True)

    @property
    def store(self) -> object | None:
        """The persistent store (``load_derived``/``save_derived`` cache views of a
        snapshot beside it), or None."""
        return self._store

    def invalidate(self) -> None:
        """Make the next :meth:`snapshot` a full re-read, as :meth:`refresh` would (cheap now)."""
        with self._lock:
            self._stale = True

    def vouch(self, unchanged: bool, *, seconds: float = CHECK_INTERVAL) -> None:
        """For a caller that watches every folder of the current snapshot (a kernel watch, as
        the MCP servers hold): ``unchanged`` (it saw no event) lets :meth:`snapshot` return it
        without the stat check for the next ``seconds``; False (it saw one) makes the next
        :meth:`snapshot` run the check (and rescan what changed) at once."""
        with self._lock:
            # the caller watches: ours would only double the kernel watches
            self.watch, self._watched, self._watcher_for = False, None, None
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
            if self._snapshot is not None and not self._stale:
                self._checked_at = (time.monotonic() + max(0.0, seconds - CHECK_INTERVAL)
                                    if unchanged else float("-inf"))


__all__ = ["Catalog", "CatalogSnapshot", "ParsedSkill", "build_entries", "same_folder", "scan"]
