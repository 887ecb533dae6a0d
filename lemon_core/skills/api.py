"""The skills library API: what the CLI calls, and what embedders call without it.

Every function takes an optional :class:`~lemon_core.context.LemonContext` (default: this
process's environment) and ``cwd`` (the project directory; default the context's), or a
``workspace`` (:class:`~lemon_core.skills.workspace.Workspace`) that owns the catalog, its
views and the plugins across calls; without one, each call builds its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.catalog.roots import is_project_dir
from lemon_core.catalog.snapshot import Catalog
from lemon_core.context import LemonContext
from lemon_core.errors import InvalidSkillError, NotFoundError, UsageError
from lemon_core.models import Diagnostic, SkillEntry, SkillStatus
from lemon_core.skills.placed import (
    Copies,
    PlacedTarget,
    is_placed_copy,
    placed_copies,
    targets_of,
    unshadowed,
)
from lemon_core.skills.skill_state import ResolvedPrograms, SkillState
from lemon_core.skills.views import InvalidSkill, Kept, SnapshotViews
from lemon_core.skills.workspace import ScopeFilter, Workspace, workspace_for
from lemon_core.state.records import LockRecord
from lemon_core.state.settings import disabled_by, set_enabled


@attrs.frozen
class ListedSkill:
    """An entry with its status and the scope it is shown under (``builtin`` for seeded
    built-ins)."""

    entry: SkillEntry
    status: SkillStatus
    scope: str
    #: The agent roots lemon placed it in (``install --agent``), from its lockfile record.
    targets: tuple[PlacedTarget, ...] = ()


@attrs.frozen
class SkillListing:
    """Every loaded skill, every failed one (``invalid``) and every diagnostic.

    ``diagnostic_keys`` maps a diagnostic's path to the key of the skill it is about (a
    SKILL.md or a skill folder); :meth:`key_of` reads it.
    """

    skills: tuple[ListedSkill, ...]
    diagnostics: tuple[Diagnostic, ...]
    invalid: tuple[InvalidSkill, ...] = ()
    diagnostic_keys: Mapping[str, str] = attrs.field(factory=dict, repr=False)

    def get(self, key: str) -> ListedSkill | None:
        return next((item for item in self.skills if item.entry.key == key), None)

    def get_invalid(self, key: str) -> InvalidSkill | None:
        """The failed copy of ``key`` that comes first in precedence, or None."""
        return next((item for item in self.invalid if item.key == key), None)

    def key_of(self, diagnostic: Diagnostic) -> str | None:
        """The key of the skill ``diagnostic`` is about, or None (a root, a settings file)."""
        return self.diagnostic_keys.get(diagnostic.path)


def catalog_for(ctx: LemonContext | None = None, *, scope: ScopeFilter = "all",
                persistent: bool = False, workspace: Workspace | None = None) -> Catalog:
    """The catalog of these roots (with a persistent cache if asked): ``workspace``'s
    (:meth:`Workspace.catalog`), or a new one."""
    return workspace_for(ctx, None, workspace).catalog(scope=scope, persistent=persistent)


def list_skills(
    ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
    scope: ScopeFilter = "all", refresh: bool = False, persistent: bool = False,
    workspace: Workspace | None = None,
) -> SkillListing:
    """Every discovered skill, sorted by key, with its status; plus every diagnostic."""
    ws = workspace_for(ctx, cwd, workspace)
    return listing_of(ws, ws.current(scope=scope, persistent=persistent, refresh=refresh))


def listing_of(workspace: Workspace, views: SnapshotViews) -> SkillListing:
    """The listing of ``views``' snapshot: statuses from the present settings, lockfiles,
    environment, platform and PATH.

    Every input is read afresh on every call; only when all of them equal those of the
    previous call on the same snapshot are that call's statuses reused (they would be
    recomputed identically).
    """
    ctx, snapshot = workspace.ctx, views.snapshot
    state = workspace.state()
    found = {program: ctx.which(program) for program in snapshot.programs}
    inputs = (state.project_settings, state.global_settings, state.locks, ctx.env,
              ctx.platform, found)
    kept = views.listing
    if kept is None or kept.inputs != inputs:
        resolved: Any = ResolvedPrograms(ctx, found)
        placed = placed_copies(ctx, state.locks)
        skills = tuple(
            _listed(entry, state, resolved, ctx, placed) for entry in snapshot.entries)
        kept = views.listing = Kept(inputs, (skills, placed))
    skills, placed = kept.value
    invalid, keys = views.failed
    return SkillListing(skills, snapshot.diagnostics + state.diagnostics,
                        _once(invalid, placed, {i.entry.key for i in skills}), keys)


def _listed(entry: SkillEntry, state: SkillState, ctx: Any, real: LemonContext,
            placed: Copies) -> ListedSkill:
    """One listed skill: its copies lemon placed in agent roots are not "shadowed" by it."""
    if entry.shadowed and placed.get(entry.key):
        entry = attrs.evolve(entry, shadowed=unshadowed(entry.key, entry.shadowed, placed))
    return ListedSkill(entry, state.status(entry, ctx), state.scope_of(entry),
                       targets_of(real, entry.scope, state.lock_record(entry)))


def _once(invalid: tuple[InvalidSkill, ...], placed: Copies,
          listed: set[str]) -> tuple[InvalidSkill, ...]:
    """The failed skills, each once: a later folder of a key that is an earlier one's link
    (one real path), or a copy lemon placed for a key shown already, is left out."""
    if len(invalid) < 2 and not placed:
        return invalid
    from lemon_core.catalog.snapshot import same_folder

    out: list[InvalidSkill] = []
    for item in invalid:
        shown = [i for i in out if i.key == item.key]
        if any(same_folder(i.dir, item.dir) for i in shown):
            continue
        if (shown or item.key in listed) and is_placed_copy(item.dir, item.key, placed):
            continue
        out.append(item)
    return tuple(out)


def get_skill(key: str, ctx: LemonContext | None = None, *,
              cwd: str | Path | None = None, persistent: bool = False,
              workspace: Workspace | None = None) -> SkillEntry | None:
    """The entry that wins ``key``, or None when no folder has that key.

    Raises :class:`~lemon_core.errors.InvalidSkillError` (a ``NotFoundError``) when the key's
    only folders hold a SKILL.md that failed to load: it says where and why.
    """
    views = workspace_for(ctx, cwd, workspace).current(persistent=persistent)
    entry = views.snapshot.by_key().get(key)
    if entry is None:
        failed = views.failed_copy(key)
        if failed is not None:
            raise invalid_skill_error(failed)
    return entry


def invalid_skill_error(failed: InvalidSkill) -> InvalidSkillError:
    """The error for asking after a skill that failed to load: its path, reason and code."""
    first = failed.error or (failed.diagnostics[0] if failed.diagnostics else None)
    detail = f"{first.message} [{first.code}]" if first is not None else "failed to load"
    more = len([d for d in failed.diagnostics if d.severity == "error"]) - 1
    extra = f" (and {more} more error{'s' if more > 1 else ''})" if more > 0 else ""
    return InvalidSkillError(
        f"skill {failed.key!r} failed to load: {failed.path}: {detail}{extra}; fix it "
        f"(run 'lemon skill lint {failed.dir}' to see every problem)",
        key=failed.key, path=failed.path, diagnostics=failed.diagnostics,
    )


def _require(key: str, workspace: Workspace, persistent: bool = False) -> SkillEntry:
    entry = get_skill(key, persistent=persistent, workspace=workspace)
    if entry is None:
        raise NotFoundError(
            f"no skill with key {key!r} is discovered from {workspace.ctx.cwd}; run "
            f"'lemon skill list' to see the keys"
        )
    return entry


def skill_status(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                 verify: bool = False, persistent: bool = False,
                 workspace: Workspace | None = None) -> SkillStatus:
    """The readiness of ``key`` now; ``verify`` also runs its verification command."""
    ws = workspace_for(ctx, cwd, workspace)
    entry = _require(key, ws, persistent)
    return ws.state().status(entry, ws.ctx, verify=verify)


def disabled_hint(key: str, ctx: LemonContext | None = None, *,
                  cwd: str | Path | None = None,
                  workspace: Workspace | None = None) -> str | None:
    """None when ``key`` is on; else where it is switched off and the command that switches it
    on there ("is disabled in the project; enable it with 'lemon skill enable --local KEY'")."""
    state = workspace_for(ctx, cwd, workspace).state()
    if disabled_by(key, state.project_settings, state.global_settings) is None:
        return None
    return state.disabled_hint(key)


def lock_record(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                persistent: bool = False,
                workspace: Workspace | None = None) -> LockRecord | None:
    """The lockfile record (install provenance) of the entry that wins ``key``."""
    ws = workspace_for(ctx, cwd, workspace)
    return ws.state().lock_record(_require(key, ws, persistent))


def _switch(key: str, ws: Workspace, enabled: bool, local: bool) -> Path:
    if local and not is_project_dir(ws.ctx):
        raise UsageError(
            f"{ws.ctx.cwd} is the home directory, which is never a project; run from a project "
            f"to use --local, or leave it out to change the global settings"
        )
    _require(key, ws)
    return set_enabled(ws.ctx, key, enabled, local=local)


def enable_skill(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                 local: bool = False, workspace: Workspace | None = None) -> Path:
    """Switch ``key`` on in the global settings (``local``: the project's); returns the file.

    The project file's state overrides the global one: after a global enable, a skill the
    project disables stays disabled (``skills.status(key).disabled`` tells).
    """
    return _switch(key, workspace_for(ctx, cwd, workspace), True, local)


def disable_skill(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                  local: bool = False, workspace: Workspace | None = None) -> Path:
    """Switch ``key`` off in the global settings (``local``: the project's); returns the file."""
    return _switch(key, workspace_for(ctx, cwd, workspace), False, local)


def refresh(ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
            workspace: Workspace | None = None) -> None:
    """Rebuild the catalog from disk now (other calls notice changes within 50 ms anyway).

    Every other catalog of the workspace sharing a root with it (the ``scope="global"`` one,
    the persistent one) re-reads everything on its next use; without a workspace, the next
    call of a one-shot workspace reads everything afresh anyway.
    """
    workspace_for(ctx, cwd, workspace).refresh()


__all__ = [
    "InvalidSkill", "ListedSkill", "SkillListing", "Workspace", "catalog_for", "disable_skill",
    "disabled_hint",
    "enable_skill", "get_skill", "invalid_skill_error", "list_skills", "listing_of",
    "lock_record", "refresh",
    "skill_status",
]
