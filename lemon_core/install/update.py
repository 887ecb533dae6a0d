"""``update``: bring installed skills up to their upstream, through the staged install.

For each record: re-resolve its source (the absolute folder of a local one, else the
identifier as typed) and ask the upstream once (:mod:`lemon_core.install.outdated`).
Unchanged upstream and no local drift: only the new ``upstream_hash`` is persisted, nothing
is fetched. Otherwise (or with ``force``) the skill is reinstalled by the pipeline, which keeps
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


def _approver(item: outdated.Installed, approve: approval.Approver, allow_trust_change: bool,
              seen: dict[str, Any]) -> approval.Approver:
    """``approve`` with what the update changes added to the install and warn questions."""
    if not approve:
        return approve
    record = item.record

    def ask(request: approval.ApprovalRequest) -> bool:
        if request.stage == "discard" and approve is True:  # never approved in advance
            raise edits.refused_in_advance(request.notes, ", ".join(request.keys))
        if request.stage in ("install", "warn", "override") and request.folders:
            changes = diff(item.path, Path(request.folders[0]))
            seen["changes"] = changes
            trust = (f"trust: {record.trust_level} -> {request.trust}"
                     if record.trust_level != request.trust else f"trust: {request.trust}")
            lines = [f"update of {record.key}: " + "; ".join(changes.lines()),
                     f"audit: {record.audit_status} -> {request.verdict}", trust]
            request = attrs.evolve(request, notes=(*lines, *request.notes))
            if record.trust_level != request.trust and approve is True and not allow_trust_change:
                raise TrustChangeRefused(
                    f"updating {record.key} would change its trust level from "
                    f"{record.trust_level} to {request.trust}; nothing was changed (approve it "
                    f"when asked, or pass allow_trust_change=True / --allow-trust-change)")
        return True if approve is True else bool(approve(request))  # type: ignore[operator]

    return ask


def _persist_upstream(item: outdated.Installed, upstream: str) -> None:
    records = editable_records(item.scope.lockfile)
    current = records.get(item.record.key)
    if current is not None and current.upstream_hash != upstream:
        write_records(item.scope.lockfile,
                      {current.key: attrs.evolve(current, upstream_hash=upstream)},
                      root=item.scope.root)


def update_one(item: outdated.Installed, state: outdated.SkillState, ctx: LemonContext, *,
               plugins: Plugins, approve: approval.Approver, force: bool,
               allow_trust_change: bool, progress: Any = None,
               refresh: Callable[[], None] | None = None,
               discard_edits: bool = False) -> UpdateResult:
    record = item.record
    base: dict[str, Any] = {
        "key": record.key, "scope": item.scope.name, "drift": state.drift,
        "upstream_before": record.upstream_hash, "verdict_before": record.audit_status,
        "trust_before": record.trust_level}
    if not force and not state.drift and state.upstream is not None and not state.outdated:
        _persist_upstream(item, state.upstream)
        return UpdateResult(action="current", upstream_after=state.upstream,
                            verdict_after=record.audit_status, trust_after=record.trust_level,
                            revision=record.resolved_commit, **base)
    _, ref = router.resolve(outdated.identifier_of(record), ctx, plugins=plugins)
    subdir = outdated.tree_subdir(record.subdirectory, ref)
    seen: dict[str, Any] = {}
    result = pipeline.install(
        outdated.identifier_of(record), ctx, plugins=plugins, local=item.scope.local,
        force=True, approve=_approver(item, approve, allow_trust_change, seen),
        skills=(subdir,) if subdir else (), progress=progress, refresh=refresh,
        discard_edits=discard_edits)
    after = next((r for r in result.all if r.key == record.key), result)
    records = editable_records(item.scope.lockfile)
    new = records.get(record.key)
    return UpdateResult(action="reinstalled" if state.drift and not state.outdated else "updated",
                        upstream_after=new.upstream_hash if new else None,
                        verdict_after=after.verdict, trust_after=after.trust,
                        revision=after.revision, changes=seen.get("changes"), **base)


def update(keys: Sequence[str], ctx: LemonContext, *, plugins: Plugins,
           approve: approval.Approver = None, force: bool = False, local: bool | None = None,
           allow_trust_change: bool = False, progress: Any = None,
           refresh: Callable[[], None] | None = None,
           discard_edits: bool = False) -> list[UpdateResult]:
    """Update ``keys`` (every recorded skill when empty); one result per skill, in order.
    A failure stops at that skill (the ones before it stay updated) and raises."""
    items = outdated.installed(ctx, keys, local)
    found = outdated.states(ctx, plugins, items, upstream=not force)
    return [update_one(item, state, ctx, plugins=plugins, approve=approve, force=force,
                       allow_trust_change=allow_trust_change, progress=progress,
                       refresh=refresh, discard_edits=discard_edits)
            for item, state in zip(items, found.states)]


__all__ = ["Changes", "TrustChangeRefused", "UpdateResult", "diff", "update", "update_one"]
