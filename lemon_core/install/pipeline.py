"""The install: skills fetched from a source, written through the audited-write transaction.

resolve the identifier → the scope (a planted ``.lemon/skill`` link refused) and the agent
roots asked for (a planted ``.claude`` link refused) → refuse what lemon did not install
(always) and an installed skill unless ``force`` (:mod:`~lemon_core.install.occupied`), for
the skills named before the fetch → approval (``fetch``; skipped for builtin) → then
:func:`lemon_core.install.transaction.commit`, whose content (:class:`Fetch`) fetches into
its private staging folder and picks the skills of the tree: the transaction checks, audits,
asks, activates, places, records, refreshes and notifies (see its module for the steps).
Whatever fails (or Ctrl-C), the skills folders and the lockfile are left exactly as they were.
Nothing from the skill is ever run.

An :class:`InstallRequest` carries every option of one install, typed; :class:`InstallSteps`
adds the source's steps (resolve, fetch, pick) to the transaction's, so a test can make any
one of them fail by passing its own.

For ``sync``: ``revision`` pins what is fetched and ``expected_bundle_hash`` refuses a bundle
that is not exactly the recorded one; one fetched tree installs several skills.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.approval import Approve, Consent, WriteApproval
from lemon_core.errors import UsageError
from lemon_core.install import (
    agent_targets,
    occupied,
    router,
    select,
    targets,
    transaction,
)
from lemon_core.install.agent_targets import Placed, TargetFailure
from lemon_core.install.failures import Blocked, Failure, NoneInstalled
from lemon_core.install.transaction import (
    Origin,
    StagedBundle,
    Staging,
    Steps,
    WriteRequest,
    WriteResult,
)
from lemon_core.install.transaction.models import Bundle
from lemon_core.protocols import FetchResult, Finding, SkillWriteEvent
from lemon_core.source_kit.location import public_url
from lemon_core.state.lockfile import editable_records

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import ProgressCallback, SkillSource, SourceRef

#: The judged skill waiting for activation (the transaction's :class:`Bundle`).
Staged = Bundle


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


def _consent(approve: Approve | Consent) -> Consent:
    return Consent.of(approve)


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen
class InstallRequest:
    """Every option of one install (see :func:`install`).

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

    identifier: str
    local: bool = False
    force: bool = False
    approve: Consent = attrs.field(default=Consent(), converter=_consent)
    skills: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    all_skills: bool = False
    choose: select.Selector | None = None
    revision: str | None = None
    expected_bundle_hash: str | Mapping[str, str] | None = None
    override: bool = False
    subpath: str | None = None
    keep_identity: bool = False
    discard_edits: bool = False
    each: bool = False
    agents: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    copy: bool = False
    progress: ProgressCallback | None = None
    refresh: Callable[[], None] | None = None


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


class InstallSteps(Steps):
    """The transaction's steps and the source's: resolve, fetch, pick the skills."""

    def resolve(self, identifier: str, ctx: LemonContext,
                plugins: Plugins) -> tuple[SkillSource, SourceRef]:
        return router.resolve(identifier, ctx, plugins=plugins)

    def fetch(self, source: SkillSource, ref: SourceRef, tree: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        return source.fetch(ref, tree, ctx, progress) or FetchResult()

    def pick(self, tree: Path, skills: Sequence[str], all_skills: bool,
             choose: select.Selector | None) -> list[str]:
        return pick_skills(tree, skills, all_skills, choose)


#: The steps of every install unless its caller passes others.
STEPS = InstallSteps()


@attrs.frozen
class Fetch:
    """The content of an install: the source's tree, fetched into the staging area, and the
    skills picked from it."""

    request: InstallRequest
    source: SkillSource
    ref: SourceRef
    identifier: str
    trust: str
    requested_ref: str | None
    ctx: LemonContext
    steps: InstallSteps

    @property
    def name(self) -> str:
        return self.ref.name or "skill"

    def stage(self, tree: Path) -> Staging:
        request, ref = self.request, self.ref
        fetched = self.steps.fetch(self.source, ref, tree, self.ctx, request.progress)
        chosen = self.steps.pick(tree, request.skills, request.all_skills, request.choose)
        origin = Origin(
            identifier=self.identifier, source=self.source.name, trust=self.trust,
            source_kind=ref.source or self.source.name,
            source_id=ref.canonical_id or ref.identifier, canonical_id=ref.canonical_id,
            requested_ref=self.requested_ref, revision=fetched.revision,
            upstream_hash=fetched.upstream_hash, subpath=ref.subpath,
            trees=dict(fetched.trees or {}), notes=tuple(fetched.notes),
            keep_identity=request.keep_identity)
        return Staging(tuple(StagedBundle(tree / sub if sub else tree, sub, ref.name or "")
                             for sub in chosen), origin)


def install(request: InstallRequest, ctx: LemonContext, plugins: Plugins,
            steps: InstallSteps = STEPS) -> InstallResult:
    """Install the skill(s) ``request.identifier`` names (see the module docstring and
    :class:`InstallRequest` for the options)."""
    keys: list[str] = []
    scope_name = "project" if request.local else "global"
    if request.copy and not request.agents:
        raise UsageError("--copy places copies in the agent roots named with --agent; name "
                         "at least one (--agent NAME)")
    asked = agent_targets.requested(request.agents, copy=request.copy, local=request.local)
    identifier = request.identifier
    try:
        source, ref = steps.resolve(identifier, ctx, plugins)
        requested = ref.revision
        if request.revision is not None:
            ref = attrs.evolve(ref, revision=request.revision)
        if request.subpath is not None:
            ref = attrs.evolve(ref, subpath=request.subpath)
        scope = targets.scope_for(ctx, local=request.local)
        scope.guard()  # a planted .lemon/skill link is refused before anything is fetched
        scope_name = scope.name
        agent_targets.guard(ctx, scope, asked)  # a planted .claude link: refused up front
        # What is recorded and shown never carries a password typed into a URL.
        shown, trust = public_url(identifier), source.trust_level(ref)
        early = list(request.skills) or (
            [ref.name] if ref.name and not request.all_skills else [])
        keys = [k.rsplit("/", 1)[-1] for k in early]
        existing = editable_records(scope.lockfile)
        # Before fetching, refuse what is known already; per skill (several) and with force
        # (update, sync: the words are upstream folders, and a skill installs under its name,
        # which may differ) the staged skill's own key is checked later.
        for key in keys if not (request.force or (request.each and len(keys) > 1)) else ():
            occupied.refuse_existing(scope.target(key), key, request.force, existing,
                                     scope.lockfile)
        if trust != "builtin":  # before the fetch, only a skill named by the caller has a
            # known folder (a repository's name is not its skills')
            steps.ask(request.approve, WriteApproval(
                stage="fetch", identifier=shown, source=source.name, trust=trust,
                scope=scope.name, keys=tuple(keys), revision=ref.revision,
                targets=tuple(str(scope.target(name.rsplit("/", 1)[-1]))
                              for name in request.skills),
                skills_dir=str(scope.skills_dir), canonical_id=ref.canonical_id))
    except Exception as exc:
        for key in keys or [identifier]:
            steps.notify(plugins, SkillWriteEvent(key, "install", False, scope=scope_name,
                                                  reason=str(exc)))
        raise
    write = WriteRequest(
        scope=scope, action="install", consent=request.approve,
        content=Fetch(request, source, ref, shown, trust, requested, ctx, steps),
        replace=request.force, each=request.each, override=request.override,
        discard_edits=request.discard_edits, expected=request.expected_bundle_hash,
        agents=asked, names=tuple(keys or [identifier]), refresh=request.refresh,
        progress=request.progress)
    return _result(transaction.commit(write, ctx, plugins, steps), shown, trust)


def _result(written: WriteResult, identifier: str, trust: str) -> InstallResult:
    origin = written.origin
    assert origin is not None  # an install always stages
    results = [InstallResult(
        key=w.key, path=w.path, scope=written.scope.name, source=origin.source,
        identifier=identifier, revision=origin.revision, trust=trust,
        bundle_hash=w.bundle_hash, verdict=w.verdict, findings=w.findings, notes=w.notes,
        replaced=w.replaced, warnings=w.warnings, targets=w.placed,
        target_failures=w.target_failures) for w in written.written]
    return attrs.evolve(results[0], more=tuple(results[1:]), failed=written.failed)


__all__ = ["STEPS", "Blocked", "Failure", "InstallRequest", "InstallResult", "InstallSteps",
           "NoneInstalled", "Staged", "install"]
