"""``update``: bring installed skills up to their upstream, through the staged install.

For each record: re-resolve its source (the absolute folder of a local one, else the
identifier as typed) and judge the skill by its own folder upstream
(:mod:`lemon_core.install.outdated`: each repository fetched once at most). Unchanged folder
and no local drift: only the new ``upstream_hash`` (and the folder's tree id) is persisted,
nothing is installed. Otherwise (or with ``force``) the skill is reinstalled by the pipeline,
the changed skills of one repository from one fetch; the pipeline keeps
``installed_at``, sets ``updated_at`` and, whatever fails, puts the old folder and record back
exactly. The approval shows what changes: files added, removed and changed, the audit verdict
and the trust level before and after. A change of trust level is never approved in advance:
``approve=True`` refuses it unless ``allow_trust_change``; an approval callback is shown it.
Neither are local edits: a skill whose files changed since the install is replaced only when
the callback approves discarding the named files, or with ``discard_edits``
(:mod:`lemon_core.install.edits`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import Option
from lemon_core.install import approval, edits, outdated, pipeline, router
from lemon_core.state.lockfile import editable_records, write_records

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins

MAX_FILE_BYTES = 64 * 1024 * 1024


@attrs.frozen
class Changes:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [f"{label}: {', '.join(paths)}" for label, paths in
                (("added", self.added), ("removed", self.removed), ("changed", self.changed))
                if paths] or ["no file changes"]


@attrs.frozen
class UpdateResult:
    """``action``: ``current`` (nothing to fetch; upstream_hash persisted), ``updated``
    (a new upstream installed) or ``reinstalled`` (local drift repaired)."""

    key: str
    scope: str
    action: str
    drift: bool
    upstream_before: str | None
    upstream_after: str | None
    verdict_before: str | None
    verdict_after: str | None
    trust_before: str | None
    trust_after: str | None
    revision: str | None = None
    changes: Changes | None = None
    #: The recorded agent-root targets it could not refresh (a copy the user edited, a folder
    #: the user put in a link's place): left as they are, each with why.
    target_failures: tuple[Any, ...] = ()


class TrustChangeRefused(approval.ApprovalRefused):
    """An update would change the skill's trust level and that was not approved explicitly."""


def _files(folder: Path) -> dict[str, str]:
    from lemon_core.fsio import read_bytes
    from lemon_core.fsio.tree import scan_tree

    out = {}
    for entry in scan_tree(folder).files:
        data = read_bytes(folder / entry.path, MAX_FILE_BYTES) or b""
        out[entry.path] = hashlib.sha256(data).hexdigest()
    return out


def diff(old: Path, new: Path) -> Changes:
    """The files added, removed and changed from the installed ``old`` to the staged ``new``."""
    before = _files(old) if old.is_dir() else {}
    after = _files(new)
    return Changes(tuple(sorted(after.keys() - before.keys())),
                   tuple(sorted(before.keys() - after.keys())),
                   tuple(sorted(p for p in after.keys() & before.keys() if after[p] != before[p])))


def _approver(batch: Sequence[outdated.Installed], approve: approval.Approver,
              allow_trust_change: bool, seen: dict[str, Changes]) -> approval.Approver:
    """``approve`` with what the update changes, per skill of ``batch``, added to the install
    and warn questions (``seen`` collects each key's changes)."""
    if not approve:
        return approve
    by_key = {item.record.key: item for item in batch}

    def ask(request: approval.ApprovalRequest) -> bool:
        if request.stage == "discard" and approve is True:  # never approved in advance
            raise edits.refused_in_advance(request.notes, ", ".join(request.keys))
        if request.stage in ("install", "warn", "override") and request.folders:
            lines: list[str] = []
            for key, folder in zip(request.keys, request.folders):
                item = by_key.get(key)
                if item is None:
                    continue
                record = item.record
                changes = diff(item.path, Path(folder))
                seen[key] = changes
                trust = (f"trust: {record.trust_level} -> {request.trust}"
                         if record.trust_level != request.trust else f"trust: {request.trust}")
                lines += [f"update of {key}: " + "; ".join(changes.lines()),
                          f"audit: {record.audit_status} -> {request.verdict}", trust]
                if (record.trust_level != request.trust and approve is True
                        and not allow_trust_change):
                    raise TrustChangeRefused(
                        f"updating {key} would change its trust level from "
                        f"{record.trust_level} to {request.trust}; nothing was changed",
                        advice=("approve it when asked, or pass ",
                                Option("allow_trust_change")))
            request = attrs.evolve(request, notes=(*lines, *request.notes))
        return True if approve is True else bool(approve(request))

    return ask


def _persist_upstream(item: outdated.Installed, upstream: str, tree: str | None) -> None:
    """Record the upstream now seen for an unchanged skill (and its folder's tree id when the
    record had none), so the next ``outdated`` fetches nothing for it."""
    records = editable_records(item.scope.lockfile)
    current = records.get(item.record.key)
    if current is None:
        return
    new = attrs.evolve(current, upstream_hash=upstream,
                       tree_id=current.tree_id or tree)
    if new != current:
        write_records(item.scope.lockfile, {current.key: new}, root=item.scope.root)


def _current(item: outdated.Installed, state: outdated.SkillState) -> UpdateResult:
    record = item.record
    _persist_upstream(item, state.upstream or "", state.upstream_tree)
    return UpdateResult(key=record.key, scope=item.scope.name, action="current",
                        drift=state.drift, upstream_before=record.upstream_hash,
                        upstream_after=state.upstream, verdict_before=record.audit_status,
                        verdict_after=record.audit_status, trust_before=record.trust_level,
                        trust_after=record.trust_level, revision=record.resolved_commit)


def _repository(item: outdated.Installed, ctx: LemonContext, plugins: Plugins) -> tuple[
        Any, ...]:
    """What one fetch can serve: a scope and one repository at one requested ref."""
    identifier = outdated.identifier_of(item.record)
    source, ref = router.resolve(identifier, ctx, plugins=plugins)
    return (item.scope.name, source.name, ref.canonical_id or identifier, ref.revision)


def _reinstall(batch: list[outdated.Installed],
               states: dict[tuple[str, str], outdated.SkillState],
               ctx: LemonContext, *, plugins: Plugins, approve: approval.Approver,
               allow_trust_change: bool, progress: Any, refresh: Callable[[], None] | None,
               discard_edits: bool) -> list[UpdateResult]:
    """Reinstall the skills of one repository from one fetch (``sync``'s batching: one
    install per identifier, or one for several identifiers whose folders share a parent)."""
    from lemon_core.install.sync import _batches

    results = []
    for identifier, (subpath, folders), items in _batches(batch, ctx, plugins):
        seen: dict[str, Changes] = {}
        result = pipeline.install(
            identifier, ctx, plugins=plugins, local=items[0].scope.local, force=True,
            approve=_approver(items, approve, allow_trust_change, seen),
            skills=tuple(sub for _, sub in folders if sub), progress=progress,
            subpath=subpath, keep_identity=subpath is not None, refresh=refresh,
            discard_edits=discard_edits)
        records = editable_records(items[0].scope.lockfile)
        for item in items:
            record, state = item.record, states[(item.scope.name, item.record.key)]
            after = next((r for r in result.all if r.key == record.key), result)
            new = records.get(record.key)
            results.append(UpdateResult(
                key=record.key, scope=item.scope.name,
                action="reinstalled" if state.drift and not state.outdated else "updated",
                drift=state.drift, upstream_before=record.upstream_hash,
                upstream_after=new.upstream_hash if new else None,
                verdict_before=record.audit_status, verdict_after=after.verdict,
                trust_before=record.trust_level, trust_after=after.trust,
                revision=after.revision, changes=seen.get(record.key),
                target_failures=after.target_failures if after.key == record.key else ()))
    return results


def update(keys: Sequence[str], ctx: LemonContext, *, plugins: Plugins,
           approve: approval.Approver = None, force: bool = False, local: bool | None = None,
           allow_trust_change: bool = False, progress: Any = None,
           refresh: Callable[[], None] | None = None, discard_edits: bool = False,
           on_result: Callable[[UpdateResult], None] | None = None) -> list[UpdateResult]:
    """Update ``keys`` (every recorded skill when empty); one result per skill, in order,
    each also passed to ``on_result`` as soon as it is known. Each skill is judged by its own
    folder (:mod:`lemon_core.install.outdated`); the changed skills of one repository are
    reinstalled from one fetch. A failure stops there (the skills done before it stay
    updated) and raises."""
    items = outdated.installed(ctx, keys, local)
    found = outdated.states(ctx, plugins, items, upstream=not force)
    done: dict[tuple[str, str], UpdateResult] = {}
    groups: dict[tuple[Any, ...], list[outdated.Installed]] = {}
    states: dict[tuple[str, str], outdated.SkillState] = {}
    for item, state in zip(items, found.states):
        if not force and not state.drift and state.upstream is not None and not state.outdated:
            done[(item.scope.name, item.record.key)] = result = _current(item, state)
            if on_result is not None:
                on_result(result)
            continue
        states[(item.scope.name, item.record.key)] = state
        groups.setdefault(_repository(item, ctx, plugins), []).append(item)
    for batch in groups.values():
        for result in _reinstall(batch, states, ctx, plugins=plugins, approve=approve,
                                 allow_trust_change=allow_trust_change, progress=progress,
                                 refresh=refresh, discard_edits=discard_edits):
            done[(result.scope, result.key)] = result
            if on_result is not None:
                on_result(result)
    return [done[(item.scope.name, item.record.key)] for item in items]


__all__ = ["Changes", "TrustChangeRefused", "UpdateResult", "diff", "update"]
