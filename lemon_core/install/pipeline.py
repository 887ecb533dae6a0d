"""The staged install: a fully installed, audited skill with its provenance, or no change.

resolve → target → refuse what lemon did not install (always) and an installed skill unless
``force`` (:mod:`~lemon_core.install.occupied`) → approval (``fetch``; skipped
for builtin or ``approve=True``) → sweep the staging folders and settle the backups killed
installs left (a note each) → fetch into a private staging folder beside the target →
pick the skills of the tree → safe-tree checks → manifest → bundle hash → local edits of a
skill being replaced (:mod:`~lemon_core.install.edits`: named, and asked; never discarded on
``approve=True`` alone, only with ``discard_edits``) → audit → approval
(``install``; ``warn`` needs its own, ``block`` needs an override bound to this bundle) →
re-hash → atomic activation → placement in the agent roots asked for and recorded
(:mod:`~lemon_core.install.agent_targets`) → lockfile records → catalog refresh → the
``lemon_skill_written`` event. Each step is a module-level function, so a test can make any
one of them fail; whatever fails (or Ctrl-C), the skills folders and the lockfile are left
exactly as they were. Nothing from the skill is ever run.

For ``sync`` (later): ``revision`` pins what is fetched and ``expected_bundle_hash`` refuses a
bundle that is not exactly the recorded one; one fetched tree installs several skills.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.write import file_lock
from lemon_core.install import (
    agent_targets,
    approval,
    backups,
    checks,
    edits,
    failures,
    gate,
    occupied,
    router,
    select,
    staging,
    targets,
)
from lemon_core.install.activate import Activation, recover
from lemon_core.install.agent_targets import Outcome, Placed, Placement, TargetFailure
from lemon_core.install.failures import Blocked, Failure, NoneInstalled
from lemon_core.manifest.lenient import relaxed_warning
from lemon_core.protocols import FetchResult, Finding, SkillWriteEvent
from lemon_core.source_kit.location import public_url
from lemon_core.state.lockfile import editable_records, write_records
from lemon_core.state.records import AgentTarget, AuditOverride, LockRecord

if TYPE_CHECKING:
    from lemon_core.audit.host import AuditReport
    from lemon_core.context import LemonContext
    from lemon_core.fsio.tree import TreeScan
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import ProgressCallback, SkillSource, SourceRef


@attrs.frozen
class InstallResult:
    """One installed skill. ``more`` holds the others when one tree installed several."""

    key: str
    path: str
    scope: str
    source: str
    identifier: str
    revision: str | None
    trust: str
    bundle_hash: str
    verdict: str
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    replaced: bool = False
    more: tuple[InstallResult, ...] = ()
    #: Warnings about this skill (a lemon rule stricter than the agents it was accepted despite).
    warnings: tuple[str, ...] = ()
    #: On the first result: the chosen skills a multi-skill install did not install.
    failed: tuple[Failure, ...] = ()
    #: The agent roots (``--agent``) that hold this skill now, linked or copied.
    targets: tuple[Placed, ...] = ()
    #: The agent roots it could not be placed in (the skill is installed all the same).
    target_failures: tuple[TargetFailure, ...] = ()

    @property
    def all(self) -> tuple[InstallResult, ...]:
        return (self, *self.more)


@attrs.frozen
class Staged:
    """One skill of the fetched tree, checked and audited, waiting for activation."""

    key: str
    folder: Path
    subdir: str
    target: Path
    scan: TreeScan
    bundle_hash: str
    content_hash: str
    report: AuditReport
    override: AuditOverride | None = None
    #: The manifest errors of rules stricter than the agents it was accepted despite.
    relaxed: tuple[Any, ...] = ()
    #: Its folder in the fetched tree when that folder is named unlike the skill.
    renamed_from: str | None = None


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the steps (module-level so tests can make each one fail) --------------------------------


def resolve_source(identifier: str, ctx: LemonContext,
                   plugins: Plugins) -> tuple[SkillSource, SourceRef]:
    return router.resolve(identifier, ctx, plugins=plugins)


def pick_scope(ctx: LemonContext, local: bool) -> targets.Scope:
    scope = targets.scope_for(ctx, local=local)
    scope.guard()  # a planted .lemon/skill link is refused before anything is fetched
    return scope


def refuse_existing(scope: targets.Scope, key: str, force: bool,
                    records: Mapping[str, LockRecord]) -> bool:
    """Whether the target of ``key`` exists and may be replaced (see
    :func:`lemon_core.install.occupied.refuse_existing`)."""
    return occupied.refuse_existing(scope.target(key), key, force, records, scope.lockfile)


def check_edits(job: _Job, staged: Sequence[Staged], records: Mapping[str, LockRecord],
                approve: approval.Approver, discard_edits: bool) -> dict[str, edits.LocalEdits]:
    """Name and ask about the local edits every replaced skill would lose; returns what was
    checked, by key, for :func:`_activate_all` to compare again under the lock."""
    found = [edits.local_edits(s.target, records[s.key]) for s in staged
             if os.path.lexists(s.target) and records.get(s.key) is not None]
    edits.guard(found, job.request("discard", list(staged)), approve, discard_edits)
    return {e.key: e for e in found}


def ask(approve: approval.Approver, request: approval.ApprovalRequest) -> None:
    approval.require(approve, request)


def fetch(source: SkillSource, ref: SourceRef, tree: Path, ctx: LemonContext,
          progress: ProgressCallback | None) -> FetchResult:
    return source.fetch(ref, tree, ctx, progress) or FetchResult()


def pick_skills(tree: Path, skills: Sequence[str], all_skills: bool,
                choose: select.Selector | None) -> list[str]:
    candidates = select.find_skills(tree)
    nested: dict[str, str] = {}
    names: dict[str, str] = {}
    if skills:  # named: by path, folder or frontmatter name, nested skills included
        nested = select.find_nested(tree, candidates)
        if not all(w in candidates or w in nested for w in skills):
            names = select.skill_names(tree, [*candidates, *nested])
    return select.choose(candidates, skills=skills, all_skills=all_skills,
                         select=None if choose is None else describing(choose, tree),
                         names=names, nested=nested)


def describing(choose: select.Selector, tree: Path) -> select.Selector:
    """``choose``, given each candidate's description too when it takes a ``descriptions``
    argument (``choose(candidates, descriptions={folder: text or None})``); a selector
    without one is called as before."""
    try:
        takes = "descriptions" in inspect.signature(choose).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no signature to read
        takes = False
    if not takes:
        return choose

    def pick(candidates: Sequence[str]) -> Sequence[str]:
        from lemon_core.install.describe import descriptions

        return choose(candidates, descriptions=descriptions(tree, candidates))  # type: ignore[call-arg]

    return pick


def audit_skill(folder: Path, ctx: LemonContext, key: str, scan: TreeScan,
                plugins: Plugins) -> AuditReport:
    return gate.audit(folder, ctx, key=key, scan=scan, auditors=plugins.auditors())


def activate(activation: Activation, staged: Staged) -> None:
    activation.activate(staged.folder, staged.target)


def record(lockfile: Path, changes: dict[str, Any], root: Path | None = None) -> dict[str, Any]:
    return write_records(lockfile, changes, root=root)


def refresh_catalog(refresh: Callable[[], None] | None) -> None:
    if refresh is not None:
        refresh()


def notify(plugins: Plugins, event: SkillWriteEvent) -> None:
    plugins.notify_skill_written(event)


# -- the pipeline ---------------------------------------------------------------------------


@attrs.frozen
class _Job:
    identifier: str
    source: Any
    ref: Any
    trust: str
    scope: targets.Scope
    ctx: Any
    plugins: Any
    #: The ref the identifier asked for (a ``revision`` pin fetches another, the record keeps it).
    requested_ref: str | None = None
    #: ``sync``: a skill with a record keeps its recorded identity (identifier, source id,
    #: requested ref, subdirectory), whichever identifier of its repository fetched it.
    keep_identity: bool = False
    #: The agent roots asked for (``--agent``); a skill's recorded ones are kept as well.
    agents: tuple[AgentTarget, ...] = ()

    def request(self, stage: str, staged: Sequence[Staged] = (), keys: Sequence[str] = (),
                targets: Sequence[str] | None = None, **more: Any) -> approval.ApprovalRequest:
        # blocking findings first: a prompt showing the first few never hides what blocks
        findings = tuple(sorted((f for s in staged for f in s.report.findings),
                                key=lambda f: f.severity != "block"))
        if self.agents and stage in ("install", "warn"):  # where else it will be placed
            more["notes"] = (*more.get("notes", ()), *(
                f"also {'linked' if t.mode == 'link' else 'copied'} into "
                f"{agent_targets.target_path(self.ctx, self.scope, t.agent, '')} ({t.agent})"
                for t in self.agents))
        return approval.ApprovalRequest(
            stage=stage, identifier=self.identifier, source=self.source.name,
            trust=self.trust, scope=self.scope.name,
            keys=tuple(s.key for s in staged) or tuple(keys),
            targets=tuple(str(s.target) for s in staged) or tuple(
                str(self.scope.target(k)) for k in keys) if targets is None else tuple(targets),
            skills_dir=str(self.scope.skills_dir),
            canonical_id=self.ref.canonical_id, findings=findings,
            files=tuple(f"{s.key}/{e.path}" if len(staged) > 1 else e.path
                        for s in staged for e in s.scan.files),
            bundle_hashes=tuple(s.bundle_hash for s in staged),
            folders=tuple(str(s.folder) for s in staged), **more)


def _stage(job: _Job, tree: Path, subdir: str, force: bool,
           existing: Mapping[str, LockRecord]) -> Staged:
    folder = tree / subdir if subdir else tree
    label = repr(subdir or job.ref.name or job.identifier)
    scan = checks.check_tree(folder, label)
    checks.check_lfs(folder, scan, label)
    judged = checks.judge_manifest(
        folder, folder_name=subdir.rsplit("/", 1)[-1] or None, fallback=job.ref.name or "")
    key, relaxed = judged.key, judged.relaxed
    target = job.scope.target(key)
    refuse_existing(job.scope, key, force, existing)
    report = audit_skill(folder, job.ctx, key, scan, job.plugins)
    # The audit read every file once and hashed exactly the bytes its auditors saw: that is
    # the bundle to approve (hashing the folder again was a second read of every file). Only
    # a bundle the audit could not read whole is hashed here; the re-hash before activation
    # refuses any change after this point.
    digest = report.bundle_hash or checks.hash_bundle(folder, scan)
    previous = existing.get(key)
    kept = previous.audit_override if previous is not None else None
    return Staged(key, folder, subdir, target, scan, digest, checks.content_hash(folder),
                  report, kept, relaxed, subdir if judged.renamed else None)


def _stage_each(job: _Job, tree: Path, chosen: Sequence[str], force: bool,
                existing: Mapping[str, LockRecord], each: bool,
                progress: ProgressCallback | None = None) -> tuple[list[Staged], list[Failure]]:
    """Stage every chosen skill. ``each`` (a multi-skill install): a skill that fails becomes
    a :class:`Failure` and the others go on, and skills of the tree sharing a name all fail;
    otherwise the first failure is raised. Several skills are reported to ``progress`` as
    each is checked and audited (``checking NAME``, done out of the number chosen)."""
    staged: list[Staged] = []
    failed: list[Failure] = []
    for done, subdir in enumerate(chosen):
        if progress is not None and len(chosen) > 1:
            progress(done, len(chosen), f"checking {subdir.rsplit('/', 1)[-1] or subdir}")
        try:
            staged.append(_stage(job, tree, subdir, force, existing))
        except LemonError as exc:
            if not each:
                raise
            name = subdir.rsplit("/", 1)[-1] or job.ref.name or job.identifier
            failed.append(failures.failure(name, subdir, exc))
    seen = [s.key for s in staged]
    if len(set(seen)) == len(seen):
        return staged, failed
    shared = {k for k in seen if seen.count(k) > 1}
    if not each:  # name every clash, each with its folders
        clashes = "; ".join(f"{key!r} in {', '.join(s.subdir for s in staged if s.key == key)}"
                            for key in sorted(shared))
        raise LemonError(f"skills of the tree share a name ({clashes}); nothing was installed; "
                         f"choose one folder of each name")
    for key in sorted(shared):
        failed.extend(failures.clash(key, [s.subdir for s in staged if s.key == key]))
    return [s for s in staged if s.key not in shared], failed


def _judge(job: _Job, staged: list[Staged], approve: approval.Approver, override: bool,
           fetched: FetchResult, failed: list[Failure] | None = None) -> list[Staged]:
    """Ask what must be asked; returns the staged skills with any new override. A blocked
    skill is raised, or (``failed`` given: a multi-skill install) added to ``failed``."""
    out = []
    for item in staged:
        if item.report.verdict != "block" or gate.allowed(item.report, item.override):
            out.append(item)
            continue
        findings = gate.blocking_findings(item.report)  # what blocks it, never only warns
        if not override or item.report.bundle_hash is None:
            blocked = Blocked(f"{item.key} is blocked by the security audit: {findings}; "
                              f"nothing was installed (an override must name this exact "
                              f"bundle: {item.bundle_hash})")
            if failed is None:
                raise blocked
            failed.append(failures.failure(item.key, item.subdir, blocked))
            continue
        ask(approve if approve is not True else None,  # approve=True never overrides a block
            job.request("override", [item], revision=fetched.revision, verdict="block"))
        from lemon_core.audit.overrides import make_override

        made = make_override(item.report, now())
        out.append(attrs.evolve(item, override=AuditOverride(**made)))
    if not out:
        return out
    verdicts = {s.report.verdict for s in out}
    revision, notes = fetched.revision, tuple(fetched.notes)
    if "warn" in verdicts:
        ask(approve, job.request("warn", out, revision=revision, verdict="warn", notes=notes))
    elif job.trust != "builtin":
        verdict = "block" if "block" in verdicts else "pass"
        ask(approve, job.request("install", out, revision=revision, verdict=verdict,
                                 notes=notes))
    return out


def _expected(staged: list[Staged], expected: str | Mapping[str, str] | None) -> None:
    """Refuse a bundle that is not the one expected (``sync``): one hash for every staged
    skill, or a hash per key (a staged key without one is a difference too)."""
    if expected is None:
        return
    for item in staged:
        want = expected if isinstance(expected, str) else expected.get(item.key)
        if want != item.bundle_hash:
            what = f"the expected {want}" if want else "recorded"
            raise LemonError(f"the fetched bundle of {item.key!r} ({item.bundle_hash}) is not "
                             f"{what}; nothing was installed")


def _record_of(job: _Job, item: Staged, fetched: FetchResult,
               previous: LockRecord | None, hashes: Mapping[str, str] | None = None,
               targets: tuple[AgentTarget, ...] = ()) -> LockRecord:
    when = now()
    subdirectory = "/".join(p for p in (job.ref.subpath, item.subdir) if p) or None
    if job.keep_identity and previous is not None:
        return attrs.evolve(
            _record_of(attrs.evolve(job, keep_identity=False), item, fetched, previous,
                       hashes, targets),
            source_kind=previous.source_kind, source_id=previous.source_id,
            identifier=previous.identifier, requested_ref=previous.requested_ref,
            subdirectory=previous.subdirectory)
    return LockRecord(
        key=item.key, source_kind=job.ref.source or job.source.name,
        source_id=job.ref.canonical_id or job.ref.identifier, identifier=job.identifier,
        requested_ref=job.requested_ref, resolved_commit=fetched.revision,
        subdirectory=subdirectory, trust_level=job.trust, content_hash=item.content_hash,
        bundle_hash=item.bundle_hash,
        upstream_hash=getattr(fetched, "upstream_hash", None) or fetched.revision
        or item.bundle_hash,
        installed_at=previous.installed_at if previous and previous.installed_at else when,
        updated_at=when, audit_status=item.report.verdict,
        audit_findings=gate.finding_lines(item.report), audit_override=item.override,
        file_hashes=dict(hashes) if hashes is not None else None,
        tree_id=(getattr(fetched, "trees", None) or {}).get(item.subdir),
        targets=targets, extra=previous.extra if previous is not None else {})


def place_targets(job: _Job, item: Staged, previous: LockRecord | None,
                  placement: Placement) -> Outcome:
    """Place the skill in the agent roots asked for and in those its record names."""
    wanted = agent_targets.wanted(previous.targets if previous is not None else (), job.agents)
    if not wanted:
        return Outcome()
    return agent_targets.place(job.ctx, job.scope, item.key, wanted, previous, placement)


def _activate_all(job: _Job, staged: list[Staged], fetched: FetchResult, force: bool,
                  refresh: Callable[[], None] | None,
                  checked: Mapping[str, edits.LocalEdits] | None = None
                  ) -> tuple[list[bool], dict[str, Outcome]]:
    """Activate every staged skill, place it in its agent roots, record them and refresh the
    catalog, or undo it all (a target that cannot be placed is reported, not undone)."""
    with contextlib.ExitStack() as locks:
        for item in sorted(staged, key=lambda s: s.key):
            locks.enter_context(file_lock(job.scope.skills_dir / f".{item.key}",
                                          root=job.scope.root))
        for item in staged:
            recover(item.target, job.scope.root)
        existing = editable_records(job.scope.lockfile)
        replaced = [refuse_existing(job.scope, item.key, force, existing) for item in staged]
        for item, was in zip(staged, replaced):
            if was and checked is not None:
                seen = checked.get(item.key)
                if seen is None:  # recorded only now (another install raced us): check it
                    raise LemonError(f"{item.key!r} was installed by another command while "
                                     f"this one ran; nothing was changed, run it again")
                edits.unchanged_since(seen, item.target)
        hashes = {item.key: checks.rehash(item.folder, item.bundle_hash, item.key)
                  for item in staged}
        activation = Activation(job.scope.root)
        placement = Placement(job.scope.root)
        previous: dict[str, Any] | None = None
        outcomes: dict[str, Outcome] = {}
        try:
            for item in staged:
                activate(activation, item)
            for item in staged:
                outcomes[item.key] = place_targets(job, item, existing.get(item.key),
                                                   placement)
            changes = {s.key: _record_of(job, s, fetched, existing.get(s.key), hashes[s.key],
                                         outcomes[s.key].recorded)
                       for s in staged}
            previous = record(job.scope.lockfile, changes, job.scope.root)
            refresh_catalog(refresh)
        except BaseException:
            with contextlib.suppress(Exception):
                if previous is not None:
                    write_records(job.scope.lockfile, previous, root=job.scope.root)
            placement.rollback()
            activation.rollback()
            raise
        activation.commit()
        placement.commit()
    return replaced, outcomes


def install(identifier: str, ctx: LemonContext, *, plugins: Plugins, local: bool = False,
            force: bool = False, approve: approval.Approver = None, skills: Sequence[str] = (),
            all_skills: bool = False, progress: ProgressCallback | None = None,
            choose: select.Selector | None = None, revision: str | None = None,
            expected_bundle_hash: str | Mapping[str, str] | None = None,
            override: bool = False, subpath: str | None = None, keep_identity: bool = False,
            refresh: Callable[[], None] | None = None,
            discard_edits: bool = False, each: bool = False, agents: Sequence[str] = (),
            copy: bool = False) -> InstallResult:
    """Install the skill(s) ``identifier`` names; see the module docstring for the steps.

    ``subpath`` replaces the identifier's subdirectory (``""``: the whole tree), so one fetch
    serves the ``skills`` of several subdirectories; ``keep_identity`` keeps each recorded
    skill's identity in its new record (both for ``sync``). ``discard_edits``: replacing a
    skill whose files changed since the install may discard those edits without asking (an
    approval callback is asked otherwise; ``approve=True`` alone refuses). ``each``: a
    multi-skill install is per skill (:mod:`~lemon_core.install.failures`): the skills that
    pass install, the others are listed in ``result.failed``
    (:class:`~lemon_core.install.failures.NoneInstalled` when none passed).

    ``agents`` names agent roots (:mod:`lemon_core.catalog.agent_roots`) to place each
    installed skill in, as a relative link to lemon's copy or, with ``copy``, as a copy
    (:mod:`~lemon_core.install.agent_targets`); the targets a skill's record names already are
    kept in step (a copy is refreshed, a missing link made again). A target that cannot be
    placed is in ``result.target_failures``; the skill is installed all the same."""
    keys: list[str] = []
    scope_name = "project" if local else "global"
    if copy and not agents:
        raise UsageError("--copy places copies in the agent roots named with --agent; name "
                         "at least one (--agent NAME)")
    asked = agent_targets.requested(agents, copy=copy, local=local)
    try:
        source, ref = resolve_source(identifier, ctx, plugins)
        requested = ref.revision
        if revision is not None:
            ref = attrs.evolve(ref, revision=revision)
        if subpath is not None:
            ref = attrs.evolve(ref, subpath=subpath)
        scope = pick_scope(ctx, local)
        scope_name = scope.name
        agent_targets.guard(ctx, scope, asked)  # a planted .claude link: refused up front
        # What is recorded and shown never carries a password typed into a URL.
        job = _Job(public_url(identifier), source, ref, source.trust_level(ref), scope, ctx,
                   plugins, requested, keep_identity, asked)
        early = list(skills) or ([ref.name] if ref.name and not all_skills else [])
        keys = [k.rsplit("/", 1)[-1] for k in early]
        existing = editable_records(scope.lockfile)
        # Before fetching, refuse what is known already; per skill (several) and with force
        # (update, sync: the words are upstream folders, and a skill installs under its name,
        # which may differ) the staged skill's own key is checked later.
        for key in keys if not (force or (each and len(keys) > 1)) else ():
            refuse_existing(scope, key, force, existing)
        if job.trust != "builtin":  # before the fetch, only a skill named by the caller has a
            # known folder (a repository's name is not its skills')
            ask(approve, job.request("fetch", keys=keys, revision=ref.revision, targets=[
                str(scope.target(name.rsplit("/", 1)[-1])) for name in skills]))
        result = _run(job, approve, force, skills, all_skills, progress, choose,
                      expected_bundle_hash, override, refresh, existing, discard_edits, each)
    except NoneInstalled as exc:
        for item in exc.failed:
            notify(plugins, SkillWriteEvent(item.key, "install", False, scope=scope_name,
                                            reason=item.reason))
        raise
    except Exception as exc:
        for key in keys or [identifier]:
            notify(plugins, SkillWriteEvent(key, "install", False, scope=scope_name,
                                            reason=str(exc)))
        raise
    for item in result.all:
        notify(plugins, SkillWriteEvent(item.key, "install", True, scope=item.scope,
                                        path=item.path, metadata={"source": item.source,
                                                                  "verdict": item.verdict}))
    for failed in result.failed:
        notify(plugins, SkillWriteEvent(failed.key, "install", False, scope=result.scope,
                                        reason=failed.reason))
    return result


def _warnings(item: Staged) -> tuple[str, ...]:
    """What the user is told about an installed skill: a folder named unlike it upstream, a
    rule stricter than the agents it was accepted despite."""
    out = []
    if item.renamed_from is not None:
        out.append(checks.renamed_warning(item.key, item.renamed_from))
    if item.relaxed:
        out.append(relaxed_warning(item.key, item.relaxed, str(item.target)))
    return tuple(out)


def _run(job: _Job, approve: approval.Approver, force: bool, skills: Sequence[str],
         all_skills: bool, progress: ProgressCallback | None, choose: select.Selector | None,
         expected_bundle_hash: str | Mapping[str, str] | None, override: bool,
         refresh: Callable[[], None] | None,
         existing: Mapping[str, LockRecord], discard_edits: bool = False,
         each: bool = False) -> InstallResult:
    fresh = staging.missing_folders(job.scope.skills_dir)
    swept = (*staging.sweep_stale(job.scope.skills_dir),
             *backups.sweep(job.scope.skills_dir, existing, job.scope.root))
    folder = staging.make_staging(job.scope.skills_dir, job.ref.name or "skill", job.scope.root)
    done = False
    try:
        tree = folder / staging.TREE
        fetched = fetch(job.source, job.ref, tree, job.ctx, progress)
        chosen = pick_skills(tree, skills, all_skills, choose)
        each = each and len(chosen) > 1
        staged, failed = _stage_each(job, tree, chosen, force, existing, each, progress)
        if each and not staged:
            raise NoneInstalled(failed)
        _expected(staged, expected_bundle_hash)
        checked = check_edits(job, staged, existing, approve, discard_edits)
        staged = _judge(job, staged, approve, override, fetched, failed if each else None)
        if each and not staged:
            raise NoneInstalled(failed)
        replaced, outcomes = _activate_all(job, staged, fetched, force, refresh, checked)
        done = True
    finally:
        staging.remove_tree(folder)
        if not done:  # a refused install leaves no skills folder it made behind
            staging.remove_empty(fresh)
    results = [InstallResult(
        key=s.key, path=str(s.target), scope=job.scope.name, source=job.source.name,
        identifier=job.identifier, revision=fetched.revision, trust=job.trust,
        bundle_hash=s.bundle_hash, verdict=s.report.verdict, findings=s.report.findings,
        notes=swept + tuple(fetched.notes) + tuple(s.report.notes), replaced=was,
        warnings=_warnings(s),
        targets=outcomes[s.key].placed, target_failures=outcomes[s.key].failed)
        for s, was in zip(staged, replaced)]
    return attrs.evolve(results[0], more=tuple(results[1:]), failed=tuple(failed))


__all__ = ["Blocked", "Failure", "InstallResult", "NoneInstalled", "Staged", "install"]
