"""The :class:`~lemon_core.mcp.servers.backend.SkillBackend` of ``lemon skill serve``.

It serves the lemon catalog of one working directory (every root, precedence, lemon's manifest
rules, the persistent cache) through the agent API: ``find_skills`` is
:func:`lemon_core.skills.agent.find_relevant` (disabled, platform-incompatible, blocked and
hidden skills never suggested), ``load_skill`` is :func:`~lemon_core.skills.agent.read_skill`
(the full view; a disabled or blocked skill is refused, a hidden one stays loadable by name),
and ``read_skill`` is the same function in any of its views (:meth:`LemonBackend.read`).
A project's skill that lemon did not install is audited when it is first loaded, never at
start-up (:class:`~lemon_core.skills.load_audit.FirstLoadAudit`): a blocked one is withheld
with a one-line reason and left out of ``find_skills`` from then on.
The names in the tool description and ``skill://index.json`` are the prompt listing's skills
(active or not ready, not hidden).

Freshness: the catalog's identity check stats every recorded path (about 45 ms at 10,000
skills), so each call first asks a kernel watch on the snapshot's folders
(:mod:`.watch`); when nothing happened it vouches for the snapshot
(:meth:`lemon_core.catalog.snapshot.Catalog.vouch`) and the call costs no stat.
After a change (or without inotify) the identity check runs and rescans what changed.
"""

from __future__ import annotations

import threading
from typing import Any

from lemon_core.catalog.watch import FolderWatcher, open_watcher, snapshot_folders
from lemon_core.context import LemonContext
from lemon_core.mcp.servers.backend import Found, Loaded, UnknownSkill

_LISTED_STATES = ("active", "not_ready")
#: How long a "no event" from the watch vouches for the snapshot (longer than any one call).
VOUCH_SECONDS = 2.0


class LemonBackend:
    def __init__(self, ctx: LemonContext, *, watch: bool = True,
                 load_audit: Any = None, workspace: Any = None) -> None:
        from lemon_core.skills import api
        from lemon_core.skills.load_audit import FirstLoadAudit
        from lemon_core.skills.workspace import Workspace

        #: The server's one workspace: its catalog, views, plugins, for every call.
        self.workspace = workspace if workspace is not None else Workspace(ctx)
        self.ctx = self.workspace.ctx
        self.load_audit = load_audit if load_audit is not None else FirstLoadAudit(self.ctx)
        self._api = api
        self._catalog = self.workspace.catalog(persistent=True)
        self._watch = watch
        if watch:  # this backend holds the watch (``_fresh``): the catalog's own would double it
            self._catalog.watch = False
        self._watcher: FolderWatcher | None = None
        self._watched: object | None = None
        self._lock = threading.Lock()
        self._fresh()
        self._warm()

    def _warm(self) -> None:
        """Build (or load from the cache) the listing and the relevance index now, not at the
        first call."""
        from lemon_core.skills.agent import find_relevant

        self._listed()
        find_relevant("", max_results=1, persistent=True, workspace=self.workspace)

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    def _fresh(self) -> None:
        """Before each call: vouch for the snapshot when the watch saw nothing; after an event
        (or without a watch) let the catalog check and rescan what changed, then watch the new
        snapshot's folders."""
        with self._lock:
            if self._watcher is not None and self._watched is not None:
                if not self._watcher.changed():
                    # for the whole call (find_relevant and read_skill take the snapshot more
                    # than once); the next call asks the watch again first
                    self._catalog.vouch(True, seconds=VOUCH_SECONDS)
                    return
                self._catalog.vouch(False)
            snapshot = self._catalog.snapshot()
            if snapshot is self._watched and self._watcher is not None:
                return
            if self._watcher is not None:
                self._watcher.close()
            self._watcher = open_watcher(snapshot_folders(snapshot, self._catalog.aux_files)) \
                if self._watch else None
            self._watched = snapshot
            if self._watcher is not None:
                if snapshot.unchanged():
                    # current, and watched from before the check on: vouch for this call
                    # (not for a racy one: a same-tick write could hide from both)
                    if not snapshot.racy:
                        self._catalog.vouch(True, seconds=VOUCH_SECONDS)
                else:
                    # changed while the watch was being set up: check again at the next call
                    self._catalog.vouch(False)
                    self._watched = None

    def _listed(self) -> list[Found]:
        listing = self._api.list_skills(persistent=True, workspace=self.workspace)
        withheld = self.load_audit.blocked
        return [Found(item.entry.key, item.entry.description) for item in listing.skills
                if item.status.state in _LISTED_STATES and not item.entry.hidden
                and item.entry.key not in withheld]

    def names(self) -> list[str]:
        self._fresh()
        return [found.name for found in self._listed()]

    def described(self) -> list[Found]:
        self._fresh()
        return self._listed()

    def find(self, query: str | None) -> list[Found]:
        from lemon_core.skills.agent import find_relevant

        self._fresh()
        if not (query or "").strip():
            return self._listed()
        withheld = self.load_audit.blocked
        return [Found(hit.key, hit.description)
                for hit in find_relevant(query or "", max_results=10 + len(withheld),
                                         persistent=True, workspace=self.workspace)
                if hit.key not in withheld][:10]

    def _read(self, name: str, **view: Any) -> object:
        from lemon_core.skills.agent import (
            SkillUnavailableError,
            UnknownSkillError,
            read_skill,
        )

        self._fresh()
        try:
            return read_skill(name, persistent=True, check=self.load_audit.check,
                              workspace=self.workspace, **view)
        except SkillUnavailableError:
            raise
        except UnknownSkillError as exc:
            raise UnknownSkill(name, exc.close_names) from None

    def load(self, name: str) -> Loaded:
        read = self._read(name)
        return Loaded(read.key, read.content, read.dir, tuple(read.files),  # type: ignore[attr-defined]
                      read.size)  # type: ignore[attr-defined]

    def read(self, name: str, **view: Any) -> Any:
        """``read_skill``: :func:`~lemon_core.skills.agent.read_skill` with ``view``
        (view, section, file, include_status, include_manifest, max_chars), through the
        first-load audit, the content defanged."""
        return self._read(name, **view)

    def read_file(self, name: str, relative: str) -> str:
        if relative == "SKILL.md":
            return self._read(name).content  # type: ignore[attr-defined]
        return self._read(name, view="file", file=relative).content  # type: ignore[attr-defined]

    def close(self) -> None:
        if self._watcher is not None:
            self._watcher.close()
            self._watcher = None
        self.workspace.close()


__all__ = ["LemonBackend", "snapshot_folders"]
