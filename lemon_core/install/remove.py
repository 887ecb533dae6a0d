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
from typing import TYPE_CHECKING

import attrs

from lemon_core.approval import Approve
from lemon_core.catalog.roots import is_project_dir
from lemon_core.errors import NotFoundError
from lemon_core.install import targets, transaction
from lemon_core.install.agent_targets import Placed, TargetFailure
from lemon_core.install.transaction.removal import check_target, not_lemons
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


__all__ = ["RemoveResult", "check_target", "find_installed", "not_lemons", "remove"]
