"""Before anything changes: each staged skill checked and audited, then every approval asked.

:func:`judge_all` runs the safe-tree checks, the manifest, the audit and the bundle hash of
each staged skill (a skill already installed is refused unless the write replaces it);
:func:`ask_edits` asks before a person's edits are discarded; :func:`ask_all` asks to install
what passed (``warn`` is its own question; a ``block`` needs an override bound to its exact
bundle, never approved in advance).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

import attrs

from lemon_core.approval import WriteApproval
from lemon_core.errors import LemonError
from lemon_core.install import agent_targets, checks, edits, failures, gate, occupied
from lemon_core.install.failures import Blocked, Failure
from lemon_core.install.transaction.models import (
    Bundle,
    Origin,
    StagedBundle,
    WriteRequest,
)
from lemon_core.state.records import AuditOverride, LockRecord

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.install.transaction.steps import Steps
    from lemon_core.plugin_registry import Plugins


def now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@attrs.frozen
class Asking:
    """What every question of one write is built from."""

    request: WriteRequest
    origin: Origin
    ctx: LemonContext

    def question(self, stage: str, bundles: Sequence[Bundle] = (), *,
                 verdict: str | None = None, notes: tuple[str, ...] = ()) -> WriteApproval:
        """The approval of ``stage`` about ``bundles``; blocking findings first, so a prompt
        showing the first few never hides what blocks."""
        scope, origin = self.request.scope, self.origin
        findings = tuple(sorted((f for b in bundles for f in b.report.findings),
                                key=lambda f: f.severity != "block"))
        if self.request.agents and stage in ("install", "warn"):  # where else it is placed
            notes = (*notes, *(
                f"also {'linked' if t.mode == 'link' else 'copied'} into "
                f"{agent_targets.target_path(self.ctx, scope, t.agent, '')} ({t.agent})"
                for t in self.request.agents))
        return WriteApproval(
            stage=stage, identifier=origin.identifier, source=origin.source,
            trust=origin.trust, scope=scope.name, keys=tuple(b.key for b in bundles),
            targets=tuple(str(b.target) for b in bundles),
            skills_dir=str(scope.skills_dir), canonical_id=origin.canonical_id,
            revision=None if stage == "discard" else origin.revision, verdict=verdict, findings=findings, notes=notes,
            files=tuple(f"{b.key}/{e.path}" if len(bundles) > 1 else e.path
                        for b in bundles for e in b.scan.files),
            bundle_hashes=tuple(b.bundle_hash for b in bundles),
            folders=tuple(str(b.folder) for b in bundles))


def judge_one(asking: Asking, staged: StagedBundle, existing: Mapping[str, LockRecord],
              steps: Steps, plugins: Plugins) -> Bundle:
    """Check and audit one staged skill (raises what refuses it)."""
    request, origin = asking.request, asking.origin
    folder, subdir = staged.folder, staged.subdir
    label = repr(subdir or staged.name or origin.identifier)
    scan = steps.check(folder, label)
    judged = checks.judge_manifest(
        folder, folder_name=subdir.rsplit("/", 1)[-1] or None, fallback=staged.name)
    key = judged.key
    target = request.scope.target(key)
    occupied.refuse_existing(target, key, request.replace, existing, request.scope.lockfile)
    report = steps.audit(folder, asking.ctx, key, scan, plugins)
    # The audit read every file once and hashed exactly the bytes its auditors saw: that is
    # the bundle to approve. Only a bundle the audit could not read whole is hashed here;
    # the re-hash before activation refuses any change after this point.
    digest = report.bundle_hash or checks.hash_bundle(folder, scan)
    previous = existing.get(key)
    kept = previous.audit_override if previous is not None else None
    return Bundle(key, folder, subdir, target, scan, digest, checks.content_hash(folder),
                  report, kept, judged.relaxed, subdir if judged.renamed else None,
                  staged.origin)


def judge_all(asking: Asking, staged: Sequence[StagedBundle],
              existing: Mapping[str, LockRecord], steps: Steps, plugins: Plugins,
              each: bool) -> tuple[list[Bundle], list[Failure]]:
    """Judge every staged skill. ``each``: a skill that fails becomes a :class:`Failure` and
    the others go on, and skills sharing a name all fail; otherwise the first failure is
    raised. Several skills are reported to the request's ``progress`` as each is checked."""
    progress = asking.request.progress
    bundles: list[Bundle] = []
    failed: list[Failure] = []
    for done, item in enumerate(staged):
        if progress is not None and len(staged) > 1:
            progress(done, len(staged), f"checking {item.subdir.rsplit('/', 1)[-1] or item.subdir}")
        try:
            bundles.append(judge_one(asking, item, existing, steps, plugins))
        except LemonError as exc:
            if not each:
                raise
            name = item.subdir.rsplit("/", 1)[-1] or item.name or asking.origin.identifier
            failed.append(failures.failure(name, item.subdir, exc))
    seen = [b.key for b in bundles]
    if len(set(seen)) == len(seen):
        return bundles, failed
    shared = {k for k in seen if seen.count(k) > 1}
    if not each:  # name every clash, each with its folders
        clashes = "; ".join(f"{key!r} in {', '.join(b.subdir for b in bundles if b.key == key)}"
                            for key in sorted(shared))
        raise LemonError(f"skills of the tree share a name ({clashes}); nothing was installed; "
                         f"choose one folder of each name")
    for key in sorted(shared):
        failed.extend(failures.clash(key, [b.subdir for b in bundles if b.key == key]))
    return [b for b in bundles if b.key not in shared], failed


def check_expected(bundles: Sequence[Bundle], expected: str | Mapping[str, str] | None) -> None:
    """Refuse a bundle that is not the one expected (``sync``): one hash for every bundle,
    or a hash per key (a key without one is a difference too)."""
    if expected is None:
        return
    for item in bundles:
        want = expected if isinstance(expected, str) else expected.get(item.key)
        if want != item.bundle_hash:
            what = f"the expected {want}" if want else "recorded"
            raise LemonError(f"the fetched bundle of {item.key!r} ({item.bundle_hash}) is not "
                             f"{what}; nothing was installed")


def ask_edits(asking: Asking, bundles: Sequence[Bundle],
              records: Mapping[str, LockRecord]) -> dict[str, edits.LocalEdits]:
    """Name and ask about the local edits every replaced skill would lose; returns what was
    checked, by key, to compare again under the lock."""
    found = [edits.local_edits(b.target, records[b.key]) for b in bundles
             if os.path.lexists(b.target) and records.get(b.key) is not None]
    edits.guard(found, asking.question("discard", bundles), asking.request.consent,
                asking.request.discard_edits)
    return {e.key: e for e in found}


def ask_all(asking: Asking, bundles: list[Bundle], steps: Steps,
            failed: list[Failure] | None = None) -> list[Bundle]:
    """Ask what must be asked; returns the bundles with any new override. A blocked skill is
    raised, or (``failed`` given: per skill) added to ``failed``."""
    request, origin = asking.request, asking.origin
    out = []
    for item in bundles:
        if item.report.verdict != "block" or gate.allowed(item.report, item.override):
            out.append(item)
            continue
        findings = gate.blocking_findings(item.report)  # what blocks it, never only warns
        if not request.override or item.report.bundle_hash is None:
            blocked = Blocked(f"{item.key} is blocked by the security audit: {findings}; "
                              f"nothing was installed (an override must name this exact "
                              f"bundle: {item.bundle_hash})")
            if failed is None:
                raise blocked
            failed.append(failures.failure(item.key, item.subdir, blocked))
            continue
        # approval given in advance never overrides a block: only a person asked does
        steps.ask(request.consent.asked_only(),
                  asking.question("override", [item], verdict="block"))
        from lemon_core.audit.overrides import make_override

        made = make_override(item.report, now())
        out.append(attrs.evolve(item, override=AuditOverride(**made)))
    if not out:
        return out
    verdicts = {b.report.verdict for b in out}
    if "warn" in verdicts:
        steps.ask(request.consent, asking.question("warn", out, verdict="warn",
                                                   notes=origin.notes))
    elif origin.trust != "builtin":
        verdict = "block" if "block" in verdicts else "pass"
        steps.ask(request.consent, asking.question("install", out, verdict=verdict,
                                                   notes=origin.notes))
    return out


__all__ = ["Asking", "ask_all", "ask_edits", "check_expected", "judge_all", "judge_one", "now"]
