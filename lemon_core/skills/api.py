"""The skills library API: what the CLI calls, and what embedders call without it.

Every function takes an optional :class:`~lemon_core.context.LemonContext` (default: this
process's environment) and ``cwd`` (the project directory; default the context's).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from lemon_core.catalog.roots import is_project_dir, skill_roots, world_writable_warning
from lemon_core.catalog.snapshot import Catalog, CatalogSnapshot
from lemon_core.catalog.walk import SKILL_FILE
from lemon_core.context import LemonContext
from lemon_core.errors import InvalidSkillError, NotFoundError, UsageError
from lemon_core.models import Diagnostic, SkillEntry, SkillStatus
from lemon_core.skills.calls import call_context
from lemon_core.skills.placed import (
    Copies,
    PlacedTarget,
    is_placed_copy,
    placed_copies,
    targets_of,
    unshadowed,
)
from lemon_core.state.lockfile import lockfile_path, read_lock_records
from lemon_core.state.readiness import compute_status
from lemon_core.state.records import LockRecord
from lemon_core.state.settings import (
    SkillSettings,
    disabled_by,
    is_disabled,
    read_settings,
    set_enabled,
    settings_path,
)
from lemon_core.text import unsafe_reason

ScopeFilter = Literal["all", "global", "project"]

#: Catalogs by (roots, aux files, cache dir), most recently used last; at most MAX_CATALOGS.
_catalogs: dict[tuple[Any, ...], Catalog] = {}
MAX_CATALOGS = 32
_catalogs_lock = threading.Lock()


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
class InvalidSkill:
    """A skill folder whose ``SKILL.md`` failed to load: never offered as a skill, but shown
    (``lemon skill list`` state ``invalid``) with why. ``diagnostics`` start with its errors."""

    key: str
    scope: str
    dir: str
    path: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def error(self) -> Diagnostic | None:
        return next((d for d in self.diagnostics if d.severity == "error"), None)

    @property
    def reason(self) -> str:
        """The first error's message (what the listing shows)."""
        first = self.error or (self.diagnostics[0] if self.diagnostics else None)
        return first.message if first is not None else "failed to load"


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


_context = call_context


def _aux_files(ctx: LemonContext) -> tuple[Path, ...]:
    return (settings_path(ctx, local=False), settings_path(ctx, local=True),
            lockfile_path(ctx, local=False), lockfile_path(ctx, local=True))


def catalog_for(ctx: LemonContext, *, scope: ScopeFilter = "all",
                persistent: bool = False) -> Catalog:
    """The shared in-process catalog for these roots (with a persistent cache if asked)."""
    if scope not in ("all", "global", "project"):
        raise UsageError(f"unknown scope {scope!r}; use all, global or project")
    roots = tuple(skill_roots(ctx, project=scope != "global", global_=scope != "project"))
    aux = _aux_files(ctx)
    cache_key = (roots, aux, ctx.cache_dir if persistent else None)
    with _catalogs_lock:
        catalog = _catalogs.pop(cache_key, None)
        if catalog is None:
            store = None
            if persistent:
                from lemon_core.catalog.cache import CacheStore

                store = CacheStore.for_context(ctx)  # None: must not be used
            catalog = Catalog(roots, aux, store=store)
        _catalogs[cache_key] = catalog
        while len(_catalogs) > MAX_CATALOGS:
            del _catalogs[next(iter(_catalogs))]
        return catalog


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
class _State:
    """Settings and lock records, read fresh for one call."""

    project_settings: Any
    global_settings: Any
    locks: Mapping[str, Mapping[str, LockRecord]]
    diagnostics: tuple[Diagnostic, ...]

    @classmethod
    def read(cls, ctx: LemonContext) -> _State:
        project, d1 = SkillSettings(), None
        project_lock: Mapping[str, LockRecord] = {}
        d3 = None
        d5 = None
        if is_project_dir(ctx):  # home is never a project: it has no project state
            d5 = world_writable_warning(ctx)
            project, d1 = read_settings(settings_path(ctx, local=True))
            project_lock, d3 = read_lock_records(lockfile_path(ctx, local=True))
        global_, d2 = SkillSettings(), None
        global_lock: Mapping[str, LockRecord] = {}
        d4 = None
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


class _ResolvedPrograms:
    """A context whose PATH lookups come from a table resolved at the start of one listing."""

    def __init__(self, ctx: LemonContext, found: Mapping[str, str | None]) -> None:
        self._ctx = ctx
        self._found = found

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    def which(self, program: str) -> str | None:
        return self._found[program] if program in self._found else self._ctx.which(program)


def list_skills(
    ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
    scope: ScopeFilter = "all", refresh: bool = False, persistent: bool = False,
) -> SkillListing:
    """Every discovered skill, sorted by key, with its status; plus every diagnostic."""
    ctx = _context(ctx, cwd)
    catalog = catalog_for(ctx, scope=scope, persistent=persistent)
    return _listing(ctx, catalog.snapshot(refresh=refresh), catalog.derived)


def _programs(snapshot: CatalogSnapshot) -> tuple[str, ...]:
    """Every program some entry requires (bins and tools), each once."""
    names = {p for e in snapshot.entries for p in (*e.manifest.requires_bins,
                                                    *e.manifest.requires_tools)}
    return tuple(sorted(names))


def _listing(ctx: LemonContext, snapshot: CatalogSnapshot,
             derived: dict[str, Any] | None = None) -> SkillListing:
    """Statuses from the present settings, lockfiles, environment, platform and PATH.

    Every input is read afresh on every call; only when all of them equal those of the
    previous call on the same snapshot are that call's statuses reused (they would be
    recomputed identically).
    """
    derived = {} if derived is None else derived
    state = _State.read(ctx)
    programs = derived.get("programs")
    if programs is None or programs[0] is not snapshot:
        programs = derived["programs"] = (snapshot, _programs(snapshot))
    found = {program: ctx.which(program) for program in programs[1]}
    inputs = (state.project_settings, state.global_settings, state.locks, ctx.env,
              ctx.platform, found)
    previous = derived.get("listing")
    if previous is not None and previous[0] is snapshot and previous[1] == inputs:
        skills = previous[2]
    else:
        resolved: Any = _ResolvedPrograms(ctx, found)
        placed = placed_copies(ctx, state.locks)
        skills = tuple(
            _listed(entry, state, resolved, ctx, placed) for entry in snapshot.entries)
        derived["listing"] = (snapshot, inputs, skills, placed)
    placed = derived["listing"][3]
    invalid, keys = _failed(snapshot, derived)
    return SkillListing(skills, snapshot.diagnostics + state.diagnostics,
                        _once(invalid, placed, {i.entry.key for i in skills}), keys)


def _listed(entry: SkillEntry, state: _State, ctx: Any, real: LemonContext,
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


def _failed(snapshot: CatalogSnapshot, derived: dict[str, Any]
            ) -> tuple[tuple[InvalidSkill, ...], dict[str, str]]:
    """:func:`_invalid_skills` of ``snapshot``, computed once per snapshot."""
    failed = derived.get("invalid")
    if failed is None or failed[0] is not snapshot:
        failed = derived["invalid"] = (snapshot, *_invalid_skills(snapshot))
    return failed[1], failed[2]


def _invalid_skills(snapshot: CatalogSnapshot
                    ) -> tuple[tuple[InvalidSkill, ...], dict[str, str]]:
    """The skill folders that failed to load (in precedence order), and which key each
    skill-related diagnostic path belongs to.

    A failed skill is a SKILL.md the loader rejected, or a walk error about a folder's own
    ``SKILL.md`` (not a regular file, a link leading elsewhere…) whose folder name is a key.
    """
    keys: dict[str, str] = {}
    invalid: list[InvalidSkill] = []
    walk_paths = {d.path for d in snapshot.walk_diagnostics}  # lookalike keys, …
    if walk_paths:
        for parsed in snapshot.parsed:
            found = parsed.found
            if found.dir in walk_paths or found.skill_md in walk_paths:
                keys[found.skill_md] = keys[found.dir] = found.key
    # this runs once per snapshot over every SKILL.md: the few with diagnostics first
    for parsed in [p for p in snapshot.parsed if p.diagnostics or p.manifest is None]:
        found = parsed.found
        keys[found.skill_md] = keys[found.dir] = found.key
        if parsed.manifest is None:
            errors = sorted(parsed.diagnostics, key=lambda d: d.severity != "error")
            invalid.append(InvalidSkill(found.key, found.root.scope, found.dir,
                                        found.skill_md, tuple(errors)))
    for diagnostic in snapshot.walk_diagnostics:
        folder, name = os.path.split(diagnostic.path)
        key = os.path.basename(folder)
        if (diagnostic.severity == "error" and name == SKILL_FILE and key
                and unsafe_reason(key) is None and folder not in keys):
            root = next((r for r in snapshot.roots
                         if folder.startswith(str(r.path) + os.sep)), None)
            keys[diagnostic.path] = keys[folder] = key
            invalid.append(InvalidSkill(key, root.scope if root else "project", folder,
                                        diagnostic.path, (diagnostic,)))
    return tuple(invalid), keys


def get_skill(key: str, ctx: LemonContext | None = None, *,
              cwd: str | Path | None = None, persistent: bool = False) -> SkillEntry | None:
    """The entry that wins ``key``, or None when no folder has that key.

    Raises :class:`~lemon_core.errors.InvalidSkillError` (a ``NotFoundError``) when the key's
    only folders hold a SKILL.md that failed to load: it says where and why.
    """
    ctx = _context(ctx, cwd)
    catalog = catalog_for(ctx, persistent=persistent)
    snapshot = catalog.snapshot()
    entry = snapshot.by_key().get(key)
    if entry is None:
        failed = next((i for i in _failed(snapshot, catalog.derived)[0] if i.key == key), None)
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


def _require(key: str, ctx: LemonContext, persistent: bool = False) -> SkillEntry:
    entry = get_skill(key, ctx, persistent=persistent)
    if entry is None:
        raise NotFoundError(
            f"no skill with key {key!r} is discovered from {ctx.cwd}; run 'lemon skill list' "
            f"to see the keys"
        )
    return entry


def skill_status(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                 verify: bool = False, persistent: bool = False) -> SkillStatus:
    """The readiness of ``key`` now; ``verify`` also runs its verification command."""
    ctx = _context(ctx, cwd)
    entry = _require(key, ctx, persistent)
    return _State.read(ctx).status(entry, ctx, verify=verify)


def disabled_hint(key: str, ctx: LemonContext | None = None, *,
                  cwd: str | Path | None = None) -> str | None:
    """None when ``key`` is on; else where it is switched off and the command that switches it
    on there ("is disabled in the project; enable it with 'lemon skill enable --local KEY'")."""
    ctx = _context(ctx, cwd)
    state = _State.read(ctx)
    if disabled_by(key, state.project_settings, state.global_settings) is None:
        return None
    return state.disabled_hint(key)


def lock_record(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                persistent: bool = False) -> LockRecord | None:
    """The lockfile record (install provenance) of the entry that wins ``key``."""
    ctx = _context(ctx, cwd)
    return _State.read(ctx).lock_record(_require(key, ctx, persistent))


def _switch(key: str, ctx: LemonContext, enabled: bool, local: bool) -> Path:
    if local and not is_project_dir(ctx):
        raise UsageError(
            f"{ctx.cwd} is the home directory, which is never a project; run from a project "
            f"to use --local, or leave it out to change the global settings"
        )
    _require(key, ctx)
    return set_enabled(ctx, key, enabled, local=local)


def enable_skill(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                 local: bool = False) -> Path:
    """Switch ``key`` on in the global settings (``local``: the project's); returns the file.

    The project file's state overrides the global one: after a global enable, a skill the
    project disables stays disabled (``skills.status(key).disabled`` tells).
    """
    return _switch(key, _context(ctx, cwd), True, local)


def disable_skill(key: str, ctx: LemonContext | None = None, *, cwd: str | Path | None = None,
                  local: bool = False) -> Path:
    """Switch ``key`` off in the global settings (``local``: the project's); returns the file."""
    return _switch(key, _context(ctx, cwd), False, local)


def refresh(ctx: LemonContext | None = None, *, cwd: str | Path | None = None) -> None:
    """Rebuild the catalog from disk now (other calls notice changes within 50 ms anyway).

    Every other in-process catalog sharing a root with it (the ``scope="global"`` one, the
    persistent one) re-reads everything on its next use.
    """
    ctx = _context(ctx, cwd)
    catalog = catalog_for(ctx)
    catalog.refresh()
    roots = set(catalog.roots)
    with _catalogs_lock:
        others = [c for c in _catalogs.values() if c is not catalog and roots & set(c.roots)]
    for other in others:
        other.invalidate()


def invalidate(ctx: LemonContext) -> None:
    """Make every in-process catalog sharing a root with ``ctx``'s re-read everything on its
    next use: :func:`refresh` without the rescan, for a change whose reader may never come
    (``lemon skill install`` changes a folder, then exits)."""
    roots = set(skill_roots(ctx, project=True, global_=True))
    with _catalogs_lock:
        sharing = [c for c in _catalogs.values() if roots & set(c.roots)]
    for catalog in sharing:
        catalog.invalidate()


__all__ = [
    "InvalidSkill", "ListedSkill", "SkillListing", "catalog_for", "disable_skill",
    "disabled_hint",
    "enable_skill", "get_skill", "invalid_skill_error", "invalidate", "list_skills", "lock_record",
    "refresh",
    "skill_status",
]
