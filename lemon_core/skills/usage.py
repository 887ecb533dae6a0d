"""The usage sidecar: how often each skill is loaded and written, and its lifecycle state.

One file per scope, outside the skill folders (a file inside one would change its bundle hash
and show an installed skill as drifted): ``<agent dir>/skills.usage.json`` (global) and
``<cwd>/.lemon/skills.usage.json`` (project). Per key it holds the load and write counts, the
last load and write times, who created an agent-authored skill (who, when, the tool call id)
and its ``lifecycle_state`` (``active``, ``stale``, ``archived``, ``pinned``)::

    {"version": 1, "skills": {"deploy-notes": {"loads": 3, "writes": 1,
     "last_loaded_at": "2026-12-03T21:00:00Z", "last_written_at": "...",
     "created": {"by": "skill_manage", "at": "...", "tool_call_id": "call-1"},
     "lifecycle_state": "active", "state_changed_at": "..."}}}

Every change goes through :func:`lemon_core.fsio.update_file` (the sibling lock and the atomic
rename lemon's other JSON files use), so concurrent servers never lose an update and a killed
write leaves the old file or the new one. A sidecar lemon cannot read (malformed, hostile, too
big) reads as empty with a problem message; recording then leaves it alone (a load never fails
because of it) and says so in the log.

Loads are recorded by the built-in observer plugin ``observers.usage``
(:mod:`lemon_plugins.observers.usage`, on the ``lemon.observers`` entry-point group, as a third
party's would be); ``skill_manage`` writes call :func:`record_write`; a
:class:`~lemon_core.skills.workspace.Workspace` holds a :class:`UsageRecorder` for its context.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.usage_kit import (
    LIFECYCLE_STATES,
    MAX_USAGE_BYTES,
    SCOPES,
    USAGE_FILE,
    Change,
    Provenance,
    SkillUsage,
    UsageFile,
    parse_stamp,
    parse_usage,
    read_usage_file,
    stamp,
    update_usage,
)

_log = logging.getLogger(__name__)

def usage_path(ctx: Any, *, local: bool) -> Path:
    """The project (``local``) or global sidecar of ``ctx``."""
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / USAGE_FILE


def _scope_local(scope: str) -> bool:
    if scope not in SCOPES:
        raise UsageError(f"unknown usage scope {scope!r}; use project or global")
    return scope == "project"


def read_usage(ctx: Any, *, local: bool) -> UsageFile:
    """The project (``local``) or global sidecar of ``ctx`` (never raises)."""
    return read_usage_file(usage_path(ctx, local=local))


@attrs.frozen
class UsageRecorder:
    """The usage sidecars of one context: what a workspace records loads and writes with.

    ``clock`` gives "now" (tests inject one).
    """

    ctx: Any
    clock: Callable[[], datetime] = attrs.field(default=lambda: datetime.now(timezone.utc))

    def path(self, scope: str) -> Path:
        return usage_path(self.ctx, local=_scope_local(scope))

    def read(self, scope: str) -> UsageFile:
        return read_usage_file(self.path(scope))

    def update(self, scope: str, changes: Mapping[str, Change]) -> UsageFile:
        local = _scope_local(scope)
        return update_usage(self.path(scope), changes, root=self.ctx.cwd if local else None)

    def record_load(self, key: str, scope: str) -> bool:
        """Count one load of ``key``; a stale skill loaded again stays stale until the curator
        reactivates it. Never raises: a failure is logged and False returned."""
        now = stamp(self.clock())

        def change(usage: SkillUsage) -> SkillUsage:
            return attrs.evolve(usage, loads=usage.loads + 1, last_loaded_at=now)

        return self._quietly(scope, {key: change})

    def record_write(self, key: str, scope: str, *, action: str, accepted: bool = True,
                     by: str = "skill_manage", tool_call_id: str | None = None) -> bool:
        """Count one write of ``key`` (a ``skill_manage`` action). ``create`` records the
        provenance (``by``, now, ``tool_call_id``) that makes the skill agent-authored; ``pin``,
        ``unpin``, ``archive`` and ``restore`` set the lifecycle state; ``delete`` drops the
        record. A refused write (``accepted=False``) is not counted. Never raises: a failure
        is logged and False returned."""
        if not accepted:
            return False
        now = stamp(self.clock())
        states = {"pin": "pinned", "unpin": "active", "archive": "archived",
                  "restore": "active"}

        def change(usage: SkillUsage) -> SkillUsage:
            usage = attrs.evolve(usage, writes=usage.writes + 1, last_written_at=now)
            if action == "create" and usage.created is None:
                usage = attrs.evolve(usage, created=Provenance(by, now, tool_call_id))
            if action in states:
                usage = attrs.evolve(usage, lifecycle_state=states[action],
                                     state_changed_at=now)
            return usage

        if action == "delete":
            return self._quietly(scope, {key: lambda usage: None})
        return self._quietly(scope, {key: change})

    def set_state(self, key: str, scope: str, state: str) -> UsageFile:
        """Set ``key``'s lifecycle state (raises as :func:`update_usage`)."""
        if state not in LIFECYCLE_STATES:
            raise UsageError(f"unknown lifecycle state {state!r}; use one of "
                             f"{', '.join(LIFECYCLE_STATES)}")
        now = stamp(self.clock())
        return self.update(scope, {key: lambda u: attrs.evolve(
            u, lifecycle_state=state, state_changed_at=now)})

    def _quietly(self, scope: str, changes: Mapping[str, Change]) -> bool:
        try:
            self.update(scope, changes)
            return True
        except (LemonError, OSError) as exc:
            _log.warning("skill usage not recorded: %s", getattr(exc, "message", exc))
            return False


def record_write(ctx: Any, key: str, *, scope: str, action: str, accepted: bool = True,
                 by: str = "skill_manage", tool_call_id: str | None = None) -> bool:
    """Count one ``skill_manage`` write of ``key`` in ``scope``'s sidecar (see
    :meth:`UsageRecorder.record_write`); never raises."""
    return UsageRecorder(ctx).record_write(key, scope, action=action, accepted=accepted, by=by,
                                           tool_call_id=tool_call_id)


__all__ = ["LIFECYCLE_STATES", "MAX_USAGE_BYTES", "SCOPES", "USAGE_FILE", "Provenance",
           "SkillUsage", "UsageFile", "UsageRecorder", "parse_stamp", "parse_usage",
           "read_usage", "read_usage_file", "record_write", "stamp", "update_usage",
           "usage_path"]
