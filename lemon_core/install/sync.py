"""``sync``: make the installed skills exactly what the lockfile records.

A skill whose folder is missing or whose bundle hash is not the recorded one is reinstalled at
its recorded commit (``revision=resolved_commit``) and refused unless the fetched bundle is
exactly the recorded ``bundle_hash``. Skills of one repository (the source's canonical id) at
one recorded commit are installed from one fetch, also when each was installed with its own
``#subdirectory=`` identifier; every record keeps its own identity. ``frozen`` changes
nothing: it reports every difference (a missing skill, a different bundle, a skill folder
without a record, a recorded agent-root target with nothing at its place) and fails on any.

The agent roots a record names (``install --agent``) are kept in step: a reinstalled skill is
placed in them again by the pipeline, and an installed skill whose link or copy is missing
(a fresh home with only the lockfile, a link deleted by hand) gets it back
(:mod:`~lemon_core.install.agent_targets`; what the user put in its place is never replaced).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.approval import Approve
from lemon_core.errors import LemonError, UsageError
from lemon_core.install import agent_targets, outdated, pipeline, router
from lemon_core.state.lockfile import editable_records
from lemon_core.state.records import AgentTarget

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins


@attrs.frozen
class Difference:
    """``kind``: ``missing``, ``bundle`` (installed bundle is not the recorded one),
    ``modified`` (the installed folder is no safe bundle now: ``problem`` says why, as
    ``lemon skill check`` does), ``extra`` (a skill folder in a lemon skills folder with no
    record) or ``target`` (nothing where the record places the skill in an agent root:
    ``found`` names the agent, ``problem`` the path)."""

    key: str
    scope: str
    kind: str
    recorded: str | None = None
    found: str | None = None
    problem: str | None = None


@attrs.frozen
class SyncResult:
    differences: tuple[Difference, ...]
    installed: tuple[str, ...] = ()
    fetches: int = 0
    #: The agent-root targets placed (again) by this sync.
    placed: tuple[agent_targets.Placed, ...] = ()
    #: The recorded targets it could not place, each with why.
    target_failures: tuple[agent_targets.TargetFailure, ...] = ()


class OutOfSync(LemonError):
    """``sync --frozen`` found the installed skills differ from the lockfile."""

    def __init__(self, message: str, differences: tuple[Difference, ...]) -> None:
        super().__init__(message)
        self.differences = differences


def differences(ctx: LemonContext, local: bool | None = None) -> tuple[
        list[outdated.Installed], list[Difference]]:
    """The records that need installing, and every difference (read only)."""
    items = outdated.installed(ctx, local=local)
    needed, found = [], []
    for item in items:
        now, problem = outdated.installed_bundle(item.path)
        if now != item.record.bundle_hash:
            needed.append(item)
            kind = "bundle" if now is not None else "missing" if problem is None else "modified"
            found.append(Difference(item.record.key, item.scope.name, kind,
                                    item.record.bundle_hash, now, problem))
        else:
            for target in agent_targets.missing(ctx, item.scope, item.record):
                path = agent_targets.target_path(ctx, item.scope, target.agent,
                                                 item.record.key)
                found.append(Difference(item.record.key, item.scope.name, "target",
                                        target.mode, target.agent,
                                        f"not placed in {path} ({target.agent})"))
    for scope in outdated.scopes(ctx, local):
        recorded = {i.record.key for i in items if i.scope == scope}
        try:
            names = sorted(os.listdir(scope.skills_dir))
        except OSError:
            continue
        for name in names:
            skill = scope.skills_dir / name / "SKILL.md"
            if not name.startswith(".") and name not in recorded and os.path.lexists(skill):
                found.append(Difference(name, scope.name, "extra"))
    return needed, found


def _describe(found: list[Difference]) -> str:
    words = {"missing": "not installed", "bundle": "installed bundle differs",
             "target": "not placed in an agent root",
             "extra": "installed without a record"}
    return "; ".join(f"{d.key} ({d.scope}): {d.problem or words[d.kind]}" for d in found)


def _group_of(item: outdated.Installed, ctx: LemonContext, plugins: Plugins) -> tuple[Any, ...]:
    """What one fetch can serve: a scope, and one repository (the source's canonical id, which
    leaves out the ref and the subdirectory) at one recorded commit. A skill with no recorded
    commit is grouped by its identifier, as typed."""
    record = item.record
    identifier = outdated.identifier_of(record)
    if record.resolved_commit is None:
        return (item.scope.name, record.source_kind, identifier, None)
    source, ref = router.resolve(identifier, ctx, plugins=plugins)
    return (item.scope.name, source.name, ref.canonical_id or identifier, record.resolved_commit)


def _common(paths: list[str]) -> str:
    """The deepest folder holding every one of ``paths`` ("" for the root)."""
    parts = [p.split("/") for p in paths]
    common: list[str] = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return "/".join(common)


def _batches(items: list[outdated.Installed], ctx: LemonContext, plugins: Plugins) -> list[
        tuple[str, tuple[str | None, list[tuple[outdated.Installed, str]]],
              list[outdated.Installed]]]:
    """One install for the group when its skills' subdirectories can come from one tree:
    (identifier, (subpath for the fetch or None for the identifier's own, [(item, folder in the
    fetched tree)]), items). Otherwise one install per identifier."""
    by_identifier: dict[str, list[outdated.Installed]] = {}
    for item in items:
        by_identifier.setdefault(outdated.identifier_of(item.record), []).append(item)
    out = []
    if len(by_identifier) > 1:
        subdirs = [(i.record.subdirectory or "").strip("/") for i in items]
        root = _common([s.rsplit("/", 1)[0] if "/" in s else "" for s in subdirs])
        relative = [s[len(root):].lstrip("/") for s in subdirs]
        if all(relative):  # every skill is a folder below the common one: one fetch
            first = next(iter(by_identifier))
            return [(first, (root, list(zip(items, relative))), items)]
    for identifier, batch in by_identifier.items():
        _, ref = router.resolve(identifier, ctx, plugins=plugins)
        folders = [(i, outdated.tree_subdir(i.record.subdirectory, ref)) for i in batch]
        out.append((identifier, (None, folders), batch))
    return out


def sync(ctx: LemonContext, *, plugins: Plugins, frozen: bool = False,
         local: bool | None = None, approve: Approve = None, progress: Any = None,
         refresh: Callable[[], None] | None = None, discard_edits: bool = False,
         agents: Sequence[str] = (), copy: bool = False,
         steps: pipeline.InstallSteps = pipeline.STEPS) -> SyncResult:
    """Install what the lockfile records and is not installed exactly (see the module). A
    skill with local edits is put back only when discarding them is approved by name or
    ``discard_edits`` (:mod:`lemon_core.install.edits`). ``agents`` (with ``copy``) adds those
    agent roots to every recorded skill of the scope(s) and places it there, as
    ``install --agent`` would (``github`` needs ``local=True``). ``steps``: the install's
    steps (a test passes its own)."""
    if agents and frozen:
        raise UsageError("--frozen changes nothing, so it places nothing: leave out --agent")
    if copy and not agents:
        raise UsageError("--copy places copies in the agent roots named with --agent; name "
                         "at least one (--agent NAME)")
    asked = agent_targets.requested(agents, copy=copy, local=local is True)
    for scope in outdated.scopes(ctx, local) if asked else ():
        agent_targets.guard(ctx, scope, asked)  # a planted .claude link: refused up front
    needed, found = differences(ctx, local)
    if frozen:
        # A skill folder without a record (a skill written by hand and committed with the
        # project) is reported, not a failure: the lockfile speaks only for what lemon installed.
        if any(d.kind != "extra" for d in found):
            raise OutOfSync(f"the installed skills differ from the lockfile: {_describe(found)}"
                            f"; nothing was changed (run 'lemon skill sync' to install the "
                            f"recorded skills)", tuple(found))
        return SyncResult(tuple(found))
    groups: dict[tuple[Any, ...], list[outdated.Installed]] = {}
    for item in needed:
        groups.setdefault(_group_of(item, ctx, plugins), []).append(item)
    done: list[str] = []
    placed: list[agent_targets.Placed] = []
    failed: list[agent_targets.TargetFailure] = []
    fetches = 0
    for items in groups.values():
        for identifier, subpath, batch in _batches(items, ctx, plugins):
            commit = batch[0].record.resolved_commit
            expected = {i.record.key: i.record.bundle_hash or "" for i in batch}
            result = pipeline.install(pipeline.InstallRequest(
                identifier, local=batch[0].scope.local, force=True,
                approve=approve, skills=tuple(sub for _, sub in subpath[1] if sub),
                progress=progress, revision=commit, expected_bundle_hash=expected,
                subpath=subpath[0], keep_identity=True, refresh=refresh,
                discard_edits=discard_edits), ctx, plugins, steps)
            fetches += 1
            done.extend(r.key for r in result.all)
            for item in result.all:
                placed.extend(t for t in item.targets if t.action != "kept")
                failed.extend(item.target_failures)
    for item in outdated.installed(ctx, local=local):
        if item in needed and not asked:
            continue
        recorded = {(t.agent, t.mode) for t in item.record.targets}
        wanted = agent_targets.wanted(agent_targets.missing(ctx, item.scope, item.record),
                                      [t for t in asked if (t.agent, t.mode) not in recorded])
        if wanted:
            outcome = _place(ctx, item, wanted, steps)
            placed.extend(t for t in outcome.placed if t.action != "kept")
            failed.extend(outcome.failed)
    if placed and refresh is not None:
        refresh()
    return SyncResult(tuple(found), tuple(done), fetches, tuple(placed), tuple(failed))


def _place(ctx: LemonContext, item: outdated.Installed, wanted: tuple[AgentTarget, ...],
           steps: pipeline.InstallSteps) -> agent_targets.Outcome:
    """Place an installed skill in the recorded agent roots it is missing from (under its
    lock, after settling what a killed placement left there)."""
    scope = item.scope
    key = item.record.key
    with steps.lock(scope, key):
        record = editable_records(scope.lockfile).get(key) or item.record
        agent_targets.settle(ctx, scope, key, wanted)
        placement = agent_targets.Placement(scope.root)
        try:
            outcome = steps.place(ctx, scope, key, wanted, record, placement)
            targets = agent_targets.wanted(record.targets, outcome.recorded)
            if targets != record.targets:
                steps.record(scope, {key: attrs.evolve(record, targets=targets)})
        except BaseException:
            placement.rollback()
            raise
        placement.commit()
    return outcome


__all__ = ["Difference", "OutOfSync", "SyncResult", "differences", "sync"]
