"""Removing an installed skill: its folder and its lockfile record, or nothing.

Only lemon's own roots are touched (the project's ``.lemon/skill`` and the global skills
folder), never another tool's. With ``local=None`` the project copy is removed when there is
one, else the global one. The folder is first renamed aside (hidden), the record deleted, the
catalog refreshed, and only then is the folder deleted; a failure on the way puts both back.

Only what lemon installed is deleted, the rules of install, update and sync: something at
the target that no lockfile record names (a hand-written skill, a folder of other files, a
file, a link) is refused with or without approval (:mod:`~lemon_core.install.occupied`); a
recorded skill whose files changed since the install is removed only when discarding those
edits is approved by name (stage ``discard``) or ``discard_edits`` says so, never on
``approve=True`` alone, and is checked again under the lock so an edit made while lemon asked
survives (:mod:`~lemon_core.install.edits`). A record whose folder is gone is dropped.

The agent roots the record names (``install --agent``) lose the skill too, once it is removed:
a link that still leads to its folder and a copy that is still exactly its bundle are deleted;
a target the user replaced is left and reported (:mod:`~lemon_core.install.agent_targets`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.approval import Approve
from lemon_core.catalog.roots import is_project_dir
from lemon_core.errors import LemonError, NotFoundError
from lemon_core.install import edits, targets, transaction
from lemon_core.install.agent_targets import Placed, TargetFailure
from lemon_core.install.occupied import NotLemons, what_is_there
from lemon_core.install.transaction.steps import STEPS, Steps
from lemon_core.protocols import SkillWriteEvent
from lemon_core.state.lockfile import editable_records
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
    #: The agent-root targets (``install --agent``) removed with it: links to its folder and
    #: copies of exactly its bundle.
    targets_removed: tuple[Placed, ...] = ()
    #: The recorded targets left where they are (the user replaced them), each with why.
    targets_left: tuple[TargetFailure, ...] = ()


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


def not_lemons(scope: targets.Scope, key: str, target: Path,
               record: LockRecord | None) -> NotLemons | None:
    """The refusal when ``target`` holds something lemon did not install (None: it holds
    the folder ``record`` names, or nothing)."""
    if not os.path.lexists(target):
        return None
    if record is not None and not os.path.islink(target) and os.path.isdir(target):
        return None
    what = what_is_there(target)
    local = " --local" if scope.name == "project" else ""
    if record is not None:
        return NotLemons(
            f"{target} holds {what} where lemon installed the folder of {key!r}; lemon "
            f"deletes only what it installed, so nothing was changed. It is yours: move or "
            f"delete it by hand, then run 'lemon skill remove {key}{local}' again to drop the "
            f"record")
    return NotLemons(
        f"{target} holds {what}; lemon removes only skills it installed (recorded in "
        f"{scope.lockfile}), so nothing was deleted. It is yours: delete it by hand if you "
        f"mean to, or run 'lemon skill disable {key}{local}' to switch it off")


def check_target(scope: targets.Scope, key: str, target: Path,
                 record: LockRecord | None) -> edits.LocalEdits | None:
    """What removing ``key`` would delete: its local edits (falsy: none), None when nothing
    is there. :raises NotLemons: the target holds something lemon did not install."""
    refused = not_lemons(scope, key, target, record)
    if refused is not None:
        raise refused
    if record is None or not os.path.lexists(target):
        return None
    return edits.local_edits(target, record)


def remove(key: str, ctx: LemonContext, *, plugins: Plugins, local: bool | None = None,
           approve: Approve = None,
           refresh: Callable[[], None] | None = None,
           discard_edits: bool = False, steps: Steps = STEPS) -> RemoveResult:
    """Remove ``key``'s folder and record after approval (skipped for built-ins), through the
    audited-write transaction (:func:`lemon_core.install.transaction.commit`).

    Refused (:class:`~lemon_core.install.occupied.NotLemons`) when the folder is not one lemon
    installed; a skill with local edits is removed only when discarding them is approved by
    name (``approve`` called with stage ``discard``) or ``discard_edits``, never on
    ``approve=True`` alone (:class:`~lemon_core.install.edits.EditsWouldBeLost`).
    ``steps``: the transaction's steps (a test passes its own)."""
    scope_name = "project" if local else "global"
    try:
        scope, _ = find_installed(ctx, key, local)
        scope_name = scope.name
        scope.guard()  # .lemon/skill -> ~/.claude/skills: refused, never deleted through
    except Exception as exc:
        steps.notify(plugins, SkillWriteEvent(key, "remove", False, scope=scope_name,
                                              reason=str(exc)))
        raise
    written = transaction.commit(transaction.WriteRequest(
        scope=scope, action="remove", consent=approve, removals=(key,),
        discard_edits=discard_edits, refresh=refresh), ctx, plugins, steps)
    done = written.written[0]
    return RemoveResult(key, done.path, scope.name, done.record, done.notes, done.placed,
                        done.target_failures)


def unchanged(scope: targets.Scope, key: str, target: Path, record: LockRecord | None,
              checked: edits.LocalEdits | None) -> None:
    """Under the lock: refuse when the record, or what is at the target, changed while lemon
    was asking (what was approved is no longer what would be deleted)."""
    if editable_records(scope.lockfile).get(key) != record:
        raise LemonError(f"the record of {key!r} in {scope.lockfile} changed while lemon was "
                         f"asking; nothing was changed, run the command again")
    now = check_target(scope, key, target, record)
    if (now is None) != (checked is None):
        raise LemonError(f"{target} changed while lemon was asking; nothing was changed, run "
                         f"the command again")
    if checked is not None:
        edits.unchanged_since(checked, target)


__all__ = ["RemoveResult", "check_target", "find_installed", "not_lemons", "remove",
           "unchanged"]
