"""One owner for what a run knows about one context: the :class:`Workspace`.

A command builds one for its context; a server (``lemon skill serve``, ``lemon mcp serve``)
builds one at start and holds it. It owns:

- the catalogs of the context's roots (one per scope and cache choice) and, for each, the views
  of its current snapshot (:class:`~lemon_core.skills.views.SnapshotViews`: the failed skills,
  the last listing's statuses, the suggestable set, the relevance index), dropped when the
  snapshot changes;
- the settings and lockfile state (:meth:`state`, read afresh for every call: other processes
  change those files);
- the loaded plugins (:meth:`plugins`, :meth:`observers`: loaded once, on first use);
- the search analyses a rebuilt relevance index reuses for unchanged SKILL.md files;
- a place for the usage recorder (:attr:`recorder`).

Nothing here is module-level: two workspaces share nothing, and a workspace's memory goes with
it. The functions of :mod:`lemon_core.skills` are a stable façade: each takes an optional
``workspace`` and, without one, builds a workspace for that one call (a one-shot call reads
everything afresh; an embedder making many calls keeps one workspace and passes it).

::

    from lemon_core import skills
    workspace = skills.Workspace.open(cwd="/path/to/project")
    listing = skills.list(workspace=workspace)        # scans
    listing = skills.list(workspace=workspace)        # the identity check only
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lemon_core.catalog.roots import skill_roots
from lemon_core.catalog.snapshot import CHECK_INTERVAL, Catalog, CatalogSnapshot
from lemon_core.context import LemonContext
from lemon_core.errors import UsageError
from lemon_core.skills.calls import call_context, call_workspace
from lemon_core.skills.skill_state import SkillState
from lemon_core.skills.usage import UsageRecorder
from lemon_core.skills.views import SnapshotViews
from lemon_core.state.lockfile import lockfile_path
from lemon_core.state.settings import settings_path

if TYPE_CHECKING:
    from lemon_core.plugin_registry import Plugins

_log = logging.getLogger(__name__)

ScopeFilter = Literal["all", "global", "project"]
#: Catalogs one workspace keeps (a scope, a cache choice, the roots of a moved project...).
MAX_CATALOGS = 8


def aux_files(ctx: LemonContext) -> tuple[Path, ...]:
    """The settings and lock files a catalog of ``ctx`` watches beside its skill folders."""
    return (settings_path(ctx, local=False), settings_path(ctx, local=True),
            lockfile_path(ctx, local=False), lockfile_path(ctx, local=True))


class Workspace:
    """What one command or server knows about one context (see the module's docstring)."""

    def __init__(self, ctx: LemonContext, *, plugins: Plugins | None = None) -> None:
        self.ctx = ctx
        self._lock = threading.RLock()
        #: (roots, aux files, cache dir or None) -> catalog, most recently used last.
        self._catalogs: dict[tuple[Any, ...], Catalog] = {}
        #: (scope, persistent) -> (when its roots were worked out, the catalog).
        self._recent: dict[tuple[str, bool], tuple[float, Catalog]] = {}
        self._views: dict[Catalog, SnapshotViews] = {}
        self._analyses: dict[Any, Any] = {}
        #: needs -> the loaded plugins, or None when they failed to load (logged).
        self._plugins: dict[tuple[str, ...] | None, Plugins | None] = {}
        if plugins is not None:
            self._plugins[None] = plugins
        #: The usage recorder of this context (:mod:`lemon_core.skills.usage`): the sidecars
        #: ``skill_manage`` writes and the curator reads through; loads reach them through
        #: the ``observers.usage`` plugin.
        self.recorder: UsageRecorder = UsageRecorder(ctx)

    @classmethod
    def open(cls, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
             plugins: Plugins | None = None) -> Workspace:
        """A workspace for ``ctx`` (default: this process's environment) with ``cwd`` applied.

        :raises UsageError: when the project directory does not exist or is not a folder.
        """
        return cls(call_context(ctx, cwd), plugins=plugins)

    # -- the catalog and its views --------------------------------------------------------------

    def catalog(self, *, scope: ScopeFilter = "all", persistent: bool = False) -> Catalog:
        """The catalog of this context's roots for ``scope`` (with the persistent cache when
        ``persistent``). Its roots are worked out again at most once per
        :data:`~lemon_core.catalog.snapshot.CHECK_INTERVAL` (a project may gain a root)."""
        if scope not in ("all", "global", "project"):
            raise UsageError(f"unknown scope {scope!r}; use all, global or project")
        now = time.monotonic()
        with self._lock:
            recent = self._recent.get((scope, persistent))
            if recent is not None and now - recent[0] < CHECK_INTERVAL:
                return recent[1]
            ctx = self.ctx
            roots = tuple(skill_roots(ctx, project=scope != "global",
                                      global_=scope != "project"))
            aux = aux_files(ctx)
            key = (roots, aux, ctx.cache_dir if persistent else None)
            catalog = self._catalogs.pop(key, None)
            if catalog is None:
                store = None
                if persistent:
                    from lemon_core.catalog.cache import CacheStore

                    store = CacheStore.for_context(ctx)  # None: must not be used
                catalog = Catalog(roots, aux, store=store)
            self._catalogs[key] = catalog
            while len(self._catalogs) > MAX_CATALOGS:
                dropped = self._catalogs.pop(next(iter(self._catalogs)))
                self._views.pop(dropped, None)
                dropped.close()
            self._recent[(scope, persistent)] = (now, catalog)
            return catalog

    def views(self, catalog: Catalog, snapshot: CatalogSnapshot) -> SnapshotViews:
        """The views of ``snapshot`` (of ``catalog``, one of this workspace's): kept until the
        catalog's snapshot changes."""
        with self._lock:
            kept = self._views.get(catalog)
            if kept is None or kept.snapshot is not snapshot:
                kept = self._views[catalog] = SnapshotViews(catalog, snapshot, self._analyses)
            return kept

    def current(self, *, scope: ScopeFilter = "all", persistent: bool = False,
                refresh: bool = False) -> SnapshotViews:
        """The views of the current snapshot of :meth:`catalog` (``refresh``: rescanned)."""
        catalog = self.catalog(scope=scope, persistent=persistent)
        return self.views(catalog, catalog.snapshot(refresh=refresh))

    def state(self) -> SkillState:
        """The settings and lock records now (read afresh)."""
        return SkillState.read(self.ctx)

    def refresh(self) -> CatalogSnapshot:
        """Rebuild the catalog of every root from disk now; every other catalog of this
        workspace sharing a root with it re-reads everything on its next use."""
        catalog = self.catalog()
        snapshot = catalog.refresh()
        roots = set(catalog.roots)
        with self._lock:
            others = [c for c in self._catalogs.values()
                      if c is not catalog and roots & set(c.roots)]
        for other in others:
            other.invalidate()
        return snapshot

    def invalidate(self) -> None:
        """Make every catalog of this workspace re-read everything on its next use: a write
        to a skills folder (install, update, remove, sync) tells its workspace so."""
        with self._lock:
            catalogs = list(self._catalogs.values())
        for catalog in catalogs:
            catalog.invalidate()

    # -- plugins ---------------------------------------------------------------------------------

    def plugins(self, needs: tuple[str, ...] | None = None) -> Plugins:
        """The plugins of this context's plugin switches, loaded once (``needs``: only these
        groups' built-ins, see :func:`lemon_core.plugins.load_plugins`).

        :raises PluginError: when they cannot be loaded.
        """
        from lemon_core.plugins import load_plugins

        with self._lock:
            loaded = self._plugins.get(needs) or self._plugins.get(None)
            if loaded is None:
                loaded = load_plugins(self.ctx, needs=needs)
                self._plugins[needs] = loaded
            return loaded

    def observers(self) -> Plugins | None:
        """The plugins told of lemon's events (a skill load...), or None when they cannot be
        loaded: the event is then not sent, and the failure logged once."""
        from lemon_core.errors import PluginError

        with self._lock:
            if None in self._plugins:
                return self._plugins[None]
            try:
                return self.plugins()
            except PluginError as exc:
                _log.warning("skill load events are not sent: %s", exc)
                self._plugins[None] = None
                return None

    def close(self) -> None:
        """Drop the kernel watches of this workspace's catalogs (a server ending)."""
        with self._lock:
            catalogs = list(self._catalogs.values())
        for catalog in catalogs:
            catalog.close()


def workspace_for(ctx: LemonContext | None, cwd: str | Path | None,
                  workspace: Workspace | None) -> Workspace:
    """The workspace of one façade call: ``workspace``, or one built for this call."""
    if workspace is None:
        return Workspace(call_context(ctx, cwd))
    call_workspace(ctx, cwd, workspace)  # checks that ctx and cwd are not given besides
    return workspace


__all__ = ["MAX_CATALOGS", "ScopeFilter", "Workspace", "aux_files", "workspace_for"]
