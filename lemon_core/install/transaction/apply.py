"""The change itself, under the skills' locks: all of it, or none of it.

:func:`activate_all` takes each skill's lock (in key order), puts back what a killed write
left aside, checks again what was approved (nobody installed or edited the skill while lemon
asked), re-hashes the staged files, renames each staged folder into place, places it in its
agent roots, records the lockfile and refreshes the catalog. Any failure (or Ctrl-C) on the
way undoes every step: the old folders, targets and records return. :func:`drop_all` does the
same for removals (set aside, drop the record, refresh, then delete).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.errors import LemonError
from lemon_core.install import agent_targets, backups, edits, gate, occupied
from lemon_core.install.activate import Activation, recover
from lemon_core.install.agent_targets import Outcome, Placed, Placement, TargetFailure
from lemon_core.install.moves import delete, exists, move
from lemon_core.install.owner import this_process
from lemon_core.install.staging import fsync_dir
from lemon_core.install.transaction.judge import now
from lemon_core.install.transaction.models import Bundle, Origin, WriteRequest
from lemon_core.install.transaction.removal import unchanged
from lemon_core.install.transaction.steps import Steps, each_lock
from lemon_core.state.lockfile import editable_records
from lemon_core.state.records import AgentTarget, LockRecord

if TYPE_CHECKING:
    from lemon_core.context import LemonContext


def record_of(origin: Origin, item: Bundle, previous: LockRecord | None,
              hashes: Mapping[str, str] | None, targets: tuple[AgentTarget, ...]) -> LockRecord:
    """The lockfile record of ``item`` (its ``installed_at`` and extra fields kept), from its
    own origin when it has one."""
    origin = item.origin or origin
    when = now()
    subdirectory = "/".join(p for p in (origin.subpath, item.subdir) if p) or None
    record = LockRecord(
        key=item.key, source_kind=origin.source_kind or origin.source,
        source_id=origin.source_id or origin.identifier, identifier=origin.identifier,
        requested_ref=origin.requested_ref, resolved_commit=origin.revision,
        subdirectory=subdirectory, trust_level=origin.trust, content_hash=item.content_hash,
        bundle_hash=item.bundle_hash,
        upstream_hash=origin.upstream_hash or origin.revision or item.bundle_hash,
        installed_at=previous.installed_at if previous and previous.installed_at else when,
        updated_at=when, audit_status=item.report.verdict,
        audit_findings=gate.finding_lines(item.report), audit_override=item.override,
        file_hashes=dict(hashes) if hashes is not None else None,
        tree_id=origin.trees.get(item.subdir), targets=targets,
        extra=previous.extra if previous is not None else {})
    if origin.keep_identity and previous is not None:
        return attrs.evolve(record, source_kind=previous.source_kind,
                            source_id=previous.source_id, identifier=previous.identifier,
                            requested_ref=previous.requested_ref,
                            subdirectory=previous.subdirectory)
    return record


def _wanted(request: WriteRequest, previous: LockRecord | None) -> tuple[AgentTarget, ...]:
    return agent_targets.wanted(previous.targets if previous is not None else (),
                                request.agents)


def activate_all(request: WriteRequest, origin: Origin, bundles: Sequence[Bundle],
                 ctx: LemonContext, steps: Steps,
                 checked: Mapping[str, edits.LocalEdits]
                 ) -> tuple[list[bool], dict[str, Outcome], list[str]]:
    """Activate, place, record and refresh every bundle, or undo it all (a target that
    cannot be placed is reported, not undone). Returns whether each replaced a skill, each
    key's placement, and notes of what was settled."""
    scope = request.scope
    with contextlib.ExitStack() as locks:
        for lock in each_lock(steps, scope, [b.key for b in bundles]):
            locks.enter_context(lock)
        notes: list[str] = []
        for item in bundles:
            recover(item.target, scope.root)
        existing = editable_records(scope.lockfile)
        for item in bundles:
            notes += agent_targets.settle(ctx, scope, item.key, _wanted(
                request, existing.get(item.key)))
        replaced = [occupied.refuse_existing(item.target, item.key, request.replace, existing,
                                             scope.lockfile) for item in bundles]
        for item, was in zip(bundles, replaced):
            if was:
                seen = checked.get(item.key)
                if seen is None:  # recorded only now (another write raced us): check it
                    raise LemonError(f"{item.key!r} was installed by another command while "
                                     f"this one ran; nothing was changed, run it again")
                edits.unchanged_since(seen, item.target)
        hashes = {item.key: steps.rehash(item.folder, item.bundle_hash, item.key)
                  for item in bundles}
        activation = Activation(scope.root)
        placement = Placement(scope.root)
        undo: dict[str, LockRecord | None] | None = None
        outcomes: dict[str, Outcome] = {}
        try:
            for item in bundles:
                steps.activate(activation, item)
            for item in bundles:
                before = existing.get(item.key)
                wanted = _wanted(request, before)
                outcomes[item.key] = (steps.place(ctx, scope, item.key, wanted, before,
                                                  placement) if wanted else Outcome())
            changes: dict[str, LockRecord | None] = {
                b.key: record_of(origin, b, existing.get(b.key), hashes[b.key],
                                 outcomes[b.key].recorded) for b in bundles}
            # from here on the lockfile may hold the new records (a write that failed after
            # its rename too): a failure writes back the records read under the lock
            undo = {key: existing.get(key) for key in changes}
            steps.record(scope, changes)
            steps.refresh(request.refresh)
        except BaseException:
            with contextlib.suppress(Exception):
                if undo is not None:
                    steps.record(scope, undo)
            placement.rollback()
            activation.rollback()
            raise
        activation.commit()
        placement.commit()
    return replaced, outcomes, notes


@attrs.frozen
class Dropped:
    """One removal done: the record it deleted and the agent-root targets taken out or left."""

    key: str
    target: Path
    record: LockRecord | None
    removed: tuple[Placed, ...] = ()
    left: tuple[TargetFailure, ...] = ()
    notes: tuple[str, ...] = ()


def drop_all(request: WriteRequest, ctx: LemonContext, steps: Steps,
             before: Mapping[str, tuple[LockRecord | None, edits.LocalEdits | None]]
             ) -> list[Dropped]:
    """Remove each key of ``before`` (its record and its checked edits when asked): set the
    folder aside, delete the record, refresh, then delete the folder and take the skill out
    of its agent roots; a failure before the delete puts every folder and record back."""
    scope = request.scope
    keys = list(before)
    with contextlib.ExitStack() as locks:
        for lock in each_lock(steps, scope, keys):
            locks.enter_context(lock)
        notes: dict[str, list[str]] = {}
        for key in keys:
            record, checked = before[key]
            notes[key] = agent_targets.settle(ctx, scope, key,
                                              record.targets if record is not None else ())
            unchanged(scope, key, scope.target(key), record, checked)
        moved: list[tuple[Path, Path]] = []
        undo: dict[str, LockRecord | None] = {}
        try:
            owner = this_process()
            for key in keys:
                target = scope.target(key)
                if exists(target, scope.root):
                    aside = backups.backup_path(target, owner, backups.REMOVING)
                    moved.append((target, aside))  # before the move: a failure in it is undone
                    steps.set_aside(scope, target, aside)
            drops: dict[str, LockRecord | None] = {
                key: None for key in keys if before[key][0] is not None}
            if drops:
                undo = {key: before[key][0] for key in drops}  # as checked under the lock
                steps.record(scope, drops)
            steps.refresh(request.refresh)
        except BaseException:
            with contextlib.suppress(Exception):
                if undo:
                    steps.record(scope, undo)
            for target, aside in reversed(moved):
                with contextlib.suppress(Exception):
                    if exists(aside, scope.root):
                        move(aside, target, scope.root)
            raise
        for target, aside in moved:
            delete(aside, scope.root)
            fsync_dir(target.parent)
        out = []
        for key in keys:
            record = before[key][0]
            removed, left = (agent_targets.take_out(ctx, scope, record) if record is not None
                             else ((), ()))
            out.append(Dropped(key, scope.target(key), record, removed, left,
                               tuple(notes[key])))
    return out


__all__ = ["Dropped", "activate_all", "drop_all", "record_of"]
