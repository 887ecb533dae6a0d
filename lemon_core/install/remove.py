"""Removing an installed skill: its folder and its lockfile record, or nothing.

Only lemon's own roots are touched (the project's ``.lemon/skill`` and the global skills
folder), never another tool's. With ``local=None`` the project copy is removed when there is
one, else the global one. The folder is first renamed aside (hidden), the record deleted, the
catalog refreshed, and only then is the folder deleted; a failure on the way puts both back.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.catalog.roots import is_project_dir
from lemon_core.errors import NotFoundError
from lemon_core.fsio.write import file_lock
from lemon_core.install import approval, backups, targets
from lemon_core.install.moves import delete, exists, move
from lemon_core.install.owner import this_process
from lemon_core.install.staging import fsync_dir
from lemon_core.protocols import SkillWriteEvent
from lemon_core.state.lockfile import editable_records, write_records
from lemon_core.state.records import LockRecord

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins


@attrs.frozen
class RemoveResult:
    key: str
    path: str
    scope: str
    record: LockRecord | None = None
    #: What the removal settled on the way (backups of interrupted installs).
    notes: tuple[str, ...] = ()


def _scopes(ctx: LemonContext, local: bool | None) -> list[targets.Scope]:
    if local is not None:
        return [targets.scope_for(ctx, local=local)]
    found = [targets.scope_for(ctx, local=True)] if is_project_dir(ctx) else []
    if ctx.usable_agent_dir is not None:
        found.append(targets.scope_for(ctx, local=False))
    return found


def find_installed(ctx: LemonContext, key: str,
                   local: bool | None) -> tuple[targets.Scope, LockRecord | None]:
    """The scope holding ``key`` (its folder or its record) and its record."""
    targets.check_key(key, "skill key")
    for scope in _scopes(ctx, local):
        records = editable_records(scope.lockfile)
        if os.path.lexists(scope.target(key)) or key in records:
            return scope, records.get(key)
    where = {None: "in the project or globally", True: "in the project", False: "globally"}
    raise NotFoundError(f"no skill {key!r} is installed {where[local]} (lemon removes only "
                        f"what is in its own skills folders); run 'lemon skill list'")


def remove(key: str, ctx: LemonContext, *, plugins: Plugins, local: bool | None = None,
           approve: approval.Approver = None,
           refresh: Callable[[], None] | None = None) -> RemoveResult:
    """Remove ``key``'s folder and record after approval (skipped for built-ins)."""
    scope_name = "project" if local else "global"
    try:
        scope, record = find_installed(ctx, key, local)
        scope_name = scope.name
        scope.guard()  # .lemon/skill -> ~/.claude/skills: refused, never deleted through
        target = scope.target(key)
        if record is None or record.trust_level != "builtin":
            approval.require(approve, approval.ApprovalRequest(
                "remove", identifier=key, source=record.source_kind if record else "unknown",
                trust=(record.trust_level or "unknown") if record else "unknown",
                scope=scope.name, keys=(key,), targets=(str(target),),
                canonical_id=record.source_id if record else None))
        notes = tuple(backups.sweep(scope.skills_dir, editable_records(scope.lockfile),
                                    scope.root))
        with file_lock(scope.skills_dir / f".{key}", root=scope.root):
            _remove(scope, key, target, record, refresh)
    except Exception as exc:
        plugins.notify_skill_written(SkillWriteEvent(key, "remove", False, scope=scope_name,
                                                     reason=str(exc)))
        raise
    plugins.notify_skill_written(SkillWriteEvent(key, "remove", True, scope=scope.name,
                                                 path=str(target)))
    return RemoveResult(key, str(target), scope.name, record, notes)


def _remove(scope: targets.Scope, key: str, target: Path, record: LockRecord | None,
            refresh: Callable[[], None] | None) -> None:
    root = scope.root  # a project: every step beneath it, never through a link
    moved = (backups.backup_path(target, this_process(), backups.REMOVING)
             if exists(target, root) else None)
    if moved is not None:
        move(target, moved, root)
    previous: dict[str, Any] = {}
    try:
        if record is not None:
            previous = write_records(scope.lockfile, {key: None}, root=root)
        if refresh is not None:
            refresh()
    except BaseException:
        with contextlib.suppress(Exception):
            if previous:
                write_records(scope.lockfile, previous, root=root)
        if moved is not None:
            move(moved, target, root)
        raise
    if moved is not None:
        delete(moved, root)
        fsync_dir(target.parent)


__all__ = ["RemoveResult", "find_installed", "remove"]
