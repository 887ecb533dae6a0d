"""The audited write: every change lemon makes to a scope's skills goes through :func:`commit`.

A :class:`WriteRequest` names the scope, the content to stage (or the keys to remove), who
approves (:class:`~lemon_core.approval.Consent`) and the action; :func:`commit` runs the steps
in order, each one a method of a :class:`Steps` object (tests pass one that fails where they
choose):

1. **sweep** what killed writes left in the skills folder (staging folders, backups);
2. **stage**: a private staging folder beside the skills, which the content fills (a fetch,
   or the files of a skill lemon writes itself);
3. **check** each skill: safe tree, Git LFS pointers, manifest, its key not taken by what
   lemon did not install (nor by an installed skill, unless the write replaces it);
4. **audit** it with every registered auditor, and hash the bundle the auditors saw;
5. **approve**: a person's edits that would be discarded, a block override bound to the exact
   bundle, a ``warn``, the install itself (skipped for built-ins);
6. **lock** each skill (in key order), put back what a killed write left aside (in lemon's
   root and in the agent roots), check again that nothing changed while lemon asked;
7. **re-hash** the staged files (a change since the audit refuses);
8. **activate** each staged folder by rename, **place** it in its agent roots;
9. **record** the lockfile, **refresh** the catalog, then delete the old copies;
10. **notify** observers (``lemon_skill_written``), accepted or refused.

A failure or Ctrl-C at any step leaves the skills folders, the agent roots and the lockfile as
they were, and no staging folder behind. A removal (``removals``) takes steps 1, 5, 6, 9, 10:
the folder is set aside, the record dropped, the catalog refreshed, then the folder deleted.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from lemon_core.approval import WriteApproval
from lemon_core.errors import UsageError
from lemon_core.install import checks, edits, staging
from lemon_core.install.failures import NoneInstalled
from lemon_core.install.transaction.apply import activate_all, drop_all
from lemon_core.install.transaction.judge import (
    Asking,
    ask_all,
    ask_edits,
    check_expected,
    judge_all,
)
from lemon_core.install.transaction.models import (
    Bundle,
    Content,
    Origin,
    StagedBundle,
    Staging,
    WriteRequest,
    WriteResult,
    Written,
)
from lemon_core.install.transaction.removal import check_target
from lemon_core.install.transaction.steps import STEPS, Steps
from lemon_core.manifest.lenient import relaxed_warning
from lemon_core.protocols import SkillWriteEvent
from lemon_core.state.lockfile import editable_records

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins


def commit(request: WriteRequest, ctx: LemonContext, plugins: Plugins,
           steps: Steps = STEPS) -> WriteResult:
    """Make the write ``request`` describes, audited and approved, or change nothing (see the
    module); observers are told either way.

    :raises NoneInstalled: ``each`` and every skill failed (each one is in ``failed``).
    :raises LemonError: a refusal (its message says what to do); nothing was changed.
    """
    if (request.content is None) == (not request.removals):
        raise UsageError("a write request stages content or removes keys, one of the two")
    try:
        result = (_put(request, request.content, ctx, plugins, steps)
                  if request.content is not None else _drop(request, ctx, plugins, steps))
    except NoneInstalled as exc:
        for failure in exc.failed:
            steps.notify(plugins, SkillWriteEvent(failure.key, request.action, False,
                                                  scope=request.scope.name,
                                                  reason=failure.reason,
                                                  tool_call_id=request.call_id))
        raise
    except Exception as exc:
        refused(request, plugins, steps, exc)
        raise
    for item in result.written:
        metadata = {"source": item.source, "verdict": item.verdict} if item.source else {}
        steps.notify(plugins, SkillWriteEvent(item.key, request.action, True,
                                              scope=request.scope.name, path=item.path,
                                              tool_call_id=request.call_id,
                                              metadata=metadata))
    for failure in result.failed:
        steps.notify(plugins, SkillWriteEvent(failure.key, request.action, False,
                                              scope=request.scope.name,
                                              reason=failure.reason,
                                              tool_call_id=request.call_id))
    return result


def refused(request: WriteRequest, plugins: Plugins, steps: Steps, exc: Exception) -> None:
    """Tell observers the write was refused, once per name it was asked for (the request's
    ``names``, else its removals, else its content's name)."""
    content = (request.content.name,) if request.content is not None else ()
    for key in request.names or request.removals or content:
        steps.notify(plugins, SkillWriteEvent(key, request.action, False,
                                              scope=request.scope.name, reason=str(exc),
                                              tool_call_id=request.call_id))


@contextlib.contextmanager
def staging_area(request: WriteRequest, name: str, steps: Steps
                 ) -> Iterator[tuple[Path, list[str], list[bool]]]:
    """A fresh staging folder in ``request.scope`` (after sweeping what killed writes left):
    yields its ``tree`` folder, the sweep's notes and a flag to set once the write committed.
    The folder is always removed; a skills folder made for a write that did not commit is
    removed again."""
    scope = request.scope
    fresh = staging.missing_folders(scope.skills_dir)
    notes = steps.sweep(scope, editable_records(scope.lockfile))
    folder = steps.stage(scope, name)
    done: list[bool] = []
    try:
        yield folder / staging.TREE, notes, done
    finally:
        staging.remove_tree(folder)
        if not done:  # a refused write leaves no skills folder it made behind
            staging.remove_empty(fresh)


def _warnings(item: Bundle) -> tuple[str, ...]:
    """What the user is told about a written skill: a folder named unlike it upstream, a rule
    stricter than the agents it was accepted despite."""
    out = []
    if item.renamed_from is not None:
        out.append(checks.renamed_warning(item.key, item.renamed_from))
    if item.relaxed:
        out.append(relaxed_warning(item.key, item.relaxed, str(item.target)))
    return tuple(out)


def _put(request: WriteRequest, content: Content, ctx: LemonContext, plugins: Plugins,
         steps: Steps) -> WriteResult:
    scope = request.scope
    existing = editable_records(scope.lockfile)
    with staging_area(request, content.name or "skill", steps) as (tree, swept, done):
        staged = content.stage(tree)
        origin = staged.origin
        asking = Asking(request, origin, ctx)
        each = request.each and len(staged.bundles) > 1
        bundles, failed = judge_all(asking, staged.bundles, existing, steps, plugins, each)
        if each and not bundles:
            raise NoneInstalled(failed)
        check_expected(bundles, request.expected)
        checked = ask_edits(asking, bundles, existing)
        bundles = ask_all(asking, bundles, steps, failed if each else None)
        if each and not bundles:
            raise NoneInstalled(failed)
        replaced, outcomes, settled = activate_all(request, origin, bundles, ctx, steps,
                                                   checked)
        done.append(True)
    notes = (*swept, *settled, *origin.notes)
    written = tuple(Written(
        key=b.key, path=str(b.target), bundle_hash=b.bundle_hash, verdict=b.report.verdict,
        source=(b.origin or origin).source,
        findings=b.report.findings, notes=(*notes, *b.report.notes), warnings=_warnings(b),
        replaced=was, placed=outcomes[b.key].placed,
        target_failures=outcomes[b.key].failed) for b, was in zip(bundles, replaced))
    return WriteResult(scope, written, origin, tuple(failed), tuple(swept))


def _drop(request: WriteRequest, ctx: LemonContext, plugins: Plugins,
          steps: Steps) -> WriteResult:
    scope = request.scope
    swept = steps.sweep(scope, editable_records(scope.lockfile))
    records = editable_records(scope.lockfile)  # as the sweep left them
    before = {}
    for key in request.removals:
        record = records.get(key)
        checked = check_target(scope, key, scope.target(key), record)
        builtin = record is not None and record.trust_level == "builtin"
        question = WriteApproval(
            "remove", identifier=key, source=record.source_kind if record else "unknown",
            trust=(record.trust_level or "unknown") if record else "unknown",
            scope=scope.name, keys=(key,), targets=(str(scope.target(key)),),
            canonical_id=record.source_id if record else None)
        if checked and not request.discard_edits:
            if not builtin and not request.consent.given:
                steps.ask(request.consent, question)  # no approval at all: say that first
            edits.guard([checked], question, request.consent, request.discard_edits,
                        verb="removing")
        elif not builtin:
            steps.ask(request.consent, question)
        before[key] = (record, checked)
    dropped = drop_all(request, ctx, steps, before)
    written = tuple(Written(key=d.key, path=str(d.target), record=d.record,
                            notes=(*swept, *d.notes), placed=d.removed,
                            target_failures=d.left) for d in dropped)
    return WriteResult(scope, written, None, (), tuple(swept))


__all__ = ["STEPS", "Bundle", "Content", "Origin", "StagedBundle", "Staging",
           "Steps", "WriteRequest", "WriteResult", "Written", "commit", "refused",
           "staging_area"]
