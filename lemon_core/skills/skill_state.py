"""The settings and lockfile state of one context: what a skill's status and scope come from.

:class:`SkillState` is read afresh for every call (settings and lock files change under a
long-lived process); :class:`ResolvedPrograms` is a context whose PATH lookups come from a
table resolved once for one listing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from lemon_core.catalog.roots import is_project_dir, world_writable_warning
from lemon_core.context import LemonContext
from lemon_core.models import Diagnostic, SkillEntry, SkillStatus
from lemon_core.state.lockfile import lockfile_path, read_lock_records
from lemon_core.state.readiness import compute_status
from lemon_core.state.records import LockRecord
from lemon_core.state.settings import (
    SkillSettings,
    disabled_by,
    is_disabled,
    read_settings,
    settings_path,
)


def _home_diagnostic(ctx: LemonContext) -> Diagnostic | None:
    """``unusable_home`` when ``ctx.home_problem`` is set (see its docstring)."""
    problem = ctx.home_problem
    if problem is None:
        return None
    return Diagnostic(str(ctx.home), "warning", "unusable_home",
                      f"the home directory {problem}; global skills, settings and lock files "
                      "below it are not read and nothing is written there; set HOME to an "
                      "existing absolute folder")


@attrs.frozen
class SkillState:
    """The settings and lock records of one context, read fresh for one call (a
    :class:`~lemon_core.skills.workspace.Workspace` reads it; nothing keeps it between calls)."""

    project_settings: SkillSettings
    global_settings: SkillSettings
    locks: Mapping[str, Mapping[str, LockRecord]]
    diagnostics: tuple[Diagnostic, ...]

    @classmethod
    def read(cls, ctx: LemonContext) -> SkillState:
        project, d1 = SkillSettings(), None
        project_lock: Mapping[str, LockRecord] = {}
        d3: Diagnostic | None = None
        d5 = None
        if is_project_dir(ctx):  # home is never a project: it has no project state
            d5 = world_writable_warning(ctx)
            project, d1 = read_settings(settings_path(ctx, local=True))
            project_lock, d3 = read_lock_records(lockfile_path(ctx, local=True))
        global_, d2 = SkillSettings(), None
        global_lock: Mapping[str, LockRecord] = {}
        d4: Diagnostic | None = None
        if ctx.usable_agent_dir is not None:  # never below an unusable home
            global_, d2 = read_settings(settings_path(ctx, local=False))
            global_lock, d4 = read_lock_records(lockfile_path(ctx, local=False))
        diagnostics = tuple(d for d in (_home_diagnostic(ctx), d5, d1, d2, d3, d4)
                            if d is not None)
        return cls(project, global_, {"project": project_lock, "global": global_lock},
                   diagnostics)

    def disabled_hint(self, key: str) -> str:
        """"is disabled in the project; enable it with 'lemon skill enable --local KEY'"
        (``--local`` only when the project's file switched it off)."""
        from lemon_core.state.settings import enable_hint

        where = disabled_by(key, self.project_settings, self.global_settings) or "global"
        return (f"is disabled {'in the project' if where == 'project' else 'globally'}; "
                f"enable it with '{enable_hint(key, where)}'")

    def lock_record(self, entry: SkillEntry) -> LockRecord | None:
        return self.locks[entry.scope].get(entry.key)

    def scope_of(self, entry: SkillEntry) -> str:
        if entry.scope != "global":
            return entry.scope
        from lemon_core.builtin_skills import FOLDER

        if entry.root == str(FOLDER):  # shipped inside lemon, not installed anywhere
            return "builtin"
        record = self.lock_record(entry)
        return "builtin" if record and record.source_kind == "builtin" else entry.scope

    def status(self, entry: SkillEntry, ctx: LemonContext, **options: Any) -> SkillStatus:
        disabled = is_disabled(entry.key, self.project_settings, self.global_settings)
        return compute_status(entry, ctx, disabled=disabled,
                              lock_record=self.lock_record(entry), **options)


class ResolvedPrograms:
    """A context whose PATH lookups come from a table resolved at the start of one listing."""

    def __init__(self, ctx: LemonContext, found: Mapping[str, str | None]) -> None:
        self._ctx = ctx
        self._found = found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def which(self, program: str) -> str | None:
        return self._found[program] if program in self._found else self._ctx.which(program)


__all__ = ["ResolvedPrograms", "SkillState"]
