"""``skills.update``, ``skills.outdated``, ``skills.check_upstream`` and ``skills.sync``: the
library calls behind ``lemon skill update``, ``outdated``, ``check`` (drift and upstream) and
``sync``. Approvals work as for :func:`lemon_core.skills.installing.install`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lemon_core.approval import Approve
from lemon_core.context import LemonContext
from lemon_core.install import outdated as outdating
from lemon_core.install import sync as syncing
from lemon_core.install import update as updating
from lemon_core.skills.calls import call_workspace, changed
from lemon_core.skills.installing import _plugins

if TYPE_CHECKING:
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import ProgressCallback
    from lemon_core.skills.workspace import Workspace


def update(keys: Sequence[str] = (), ctx: LemonContext | None = None, *,
           approve: Approve = None, force: bool = False, local: bool | None = None,
           allow_trust_change: bool = False, progress: ProgressCallback | None = None,
           cwd: str | Path | None = None, plugins: Plugins | None = None,
           discard_edits: bool = False,
           on_result: Callable[[updating.UpdateResult], None] | None = None,
           workspace: Workspace | None = None) -> list[updating.UpdateResult]:
    """Update the installed skills ``keys`` (all recorded ones when empty); see
    :mod:`lemon_core.install.update` (``discard_edits``: may discard local edits unasked)."""
    ctx = call_workspace(ctx, cwd, workspace)
    return updating.update(tuple(keys), ctx, plugins=_plugins(ctx, plugins, workspace),
                           approve=approve,
                           force=force, local=local, allow_trust_change=allow_trust_change,
                           progress=progress, refresh=changed(workspace),
                           discard_edits=discard_edits, on_result=on_result)


def outdated(ctx: LemonContext | None = None, *, keys: Sequence[str] = (),
             local: bool | None = None, upstream: bool = True, cwd: str | Path | None = None,
             plugins: Plugins | None = None,
             workspace: Workspace | None = None) -> outdating.Outdated:
    """Drift and upstream state of every recorded skill (or ``keys``), each upstream asked
    once."""
    ctx = call_workspace(ctx, cwd, workspace)
    items = outdating.installed(ctx, tuple(keys), local)
    return outdating.states(ctx, _plugins(ctx, plugins, workspace), items, upstream=upstream)


def check_upstream(key: str, ctx: LemonContext | None = None, *, upstream: bool = True,
                   cwd: str | Path | None = None,
                   plugins: Plugins | None = None) -> outdating.SkillState:
    """Drift and upstream state of one recorded skill (the project's copy first)."""
    return outdated(ctx, keys=(key,), upstream=upstream, cwd=cwd, plugins=plugins).states[0]


def install_state(key: str, ctx: LemonContext | None = None, *, upstream: bool = True,
                  cwd: str | Path | None = None,
                  plugins: Plugins | None = None,
                  workspace: Workspace | None = None) -> outdating.SkillState | None:
    """:func:`check_upstream`, or None when ``key`` has no lockfile record (not installed by
    lemon: there is no drift or upstream to report)."""
    ctx = call_workspace(ctx, cwd, workspace)
    items = outdating.installed(ctx, strict=False)
    mine = [i for i in items if i.record.key == key][:1]
    if not mine:
        return None
    plugins = _plugins(ctx, plugins, workspace)
    return outdating.states(ctx, plugins, mine, upstream=upstream).states[0]


def sync(ctx: LemonContext | None = None, *, frozen: bool = False, local: bool | None = None,
         approve: Approve = None, progress: ProgressCallback | None = None,
         cwd: str | Path | None = None, plugins: Plugins | None = None,
         discard_edits: bool = False, agents: Sequence[str] = (),
         copy: bool = False, workspace: Workspace | None = None) -> syncing.SyncResult:
    """Install exactly what the lockfile records; ``frozen`` only checks and fails on any
    difference (:class:`lemon_core.install.sync.OutOfSync`). The agent roots the records name
    are kept in step (a missing link or copy is placed again); ``agents`` (with ``copy``) adds
    those roots to every recorded skill of the scope(s)."""
    ctx = call_workspace(ctx, cwd, workspace)
    return syncing.sync(ctx, plugins=_plugins(ctx, plugins, workspace), frozen=frozen,
                        local=local,
                        approve=approve, progress=progress, refresh=changed(workspace),
                        discard_edits=discard_edits, agents=tuple(agents), copy=copy)


__all__ = ["check_upstream", "install_state", "outdated", "sync", "update"]
