"""``lemon blueprint apply ID --digest D``: a previewed blueprint written, all or nothing.

The plan is built afresh (:func:`~lemon_core.blueprints.plan.preview`) and applied only when
its digest is ``D`` (else :class:`~lemon_core.blueprints.model.StaleDigest`, naming the new
digest) and it has no problems. The skills are then written by one audited write
(:func:`lemon_core.install.transaction.commit`) whose content stages every source, each
pinned to the revision the digest covers, each skill with its own origin; the staged bundle
folder is listed again and must still match the digest.

All or nothing: the servers are checked before anything is written (schema, the scope's
``mcp.json`` readable), and written in one atomic edit of that file as the last step of the
skills' write, inside it (its ``refresh`` step, after the lockfile is recorded and before the
write commits): when the servers cannot be written, the transaction undoes the skills (old
folders, agent roots and records back). A blueprint without skills writes its servers alone,
in that one edit.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.blueprints.model import StaleDigest
from lemon_core.blueprints.parse import list_files
from lemon_core.blueprints.plan import Plan, preview

if TYPE_CHECKING:
    from lemon_core.approval import Approve
    from lemon_core.blueprints.model import Blueprint
    from lemon_core.context import LemonContext
    from lemon_core.install.pipeline import InstallSteps
    from lemon_core.install.transaction import Staging, WriteResult
    from lemon_core.mcp.manage import WriteResult as ServerWritten
    from lemon_core.plugin_registry import Plugins


@attrs.frozen
class Applied:
    """What an apply wrote: the plan, the skills' write (None: no skills) and the servers."""

    plan: Plan
    skills: WriteResult | None
    servers: tuple[ServerWritten, ...]


@attrs.frozen
class BlueprintContent:
    """The content of a blueprint's write: every source of the plan, staged side by side."""

    plan: Plan
    ctx: LemonContext
    steps: InstallSteps
    plugins: Plugins

    @property
    def name(self) -> str:
        return f"blueprint-{self.plan.blueprint.id}"

    def stage(self, tree: Path) -> Staging:
        from lemon_core.install.pipeline import pick_skills
        from lemon_core.install.transaction import Origin, StagedBundle, Staging

        bundles = []
        for index, item in enumerate(self.plan.skills):
            source, ref = self.steps.resolve(item.resolved, self.ctx, self.plugins)
            if item.revision is not None:
                ref = attrs.evolve(ref, revision=item.revision)
            folder = tree / str(index)
            folder.mkdir()
            fetched = self.steps.fetch(source, ref, folder, self.ctx, None)
            origin = Origin(
                identifier=item.identifier, source=source.name, trust=item.trust,
                source_kind=ref.source or source.name,
                source_id=ref.canonical_id or ref.identifier, canonical_id=ref.canonical_id,
                revision=fetched.revision, upstream_hash=fetched.upstream_hash,
                subpath=ref.subpath, trees=dict(fetched.trees or {}),
                notes=tuple(fetched.notes))
            for sub in pick_skills(folder, item.chosen, False, None):
                bundles.append(StagedBundle(folder / sub if sub else folder, sub,
                                            ref.name or "", origin))
        if list_files(self.plan.blueprint.root) != self.plan.blueprint.files:
            raise StaleDigest(self.plan.digest, "a different one (the bundle changed while "
                              "it was applied)")
        return Staging(tuple(bundles), Origin(identifier=f"blueprint:{self.plan.blueprint.id}",
                                              source="blueprint", trust="local"))


def apply(blueprint: Blueprint, digest: str, ctx: LemonContext, plugins: Plugins, *,
          profile: str | None = None, approve: Approve = None,
          steps: InstallSteps | None = None,
          write_servers: Callable[..., Any] | None = None) -> Applied:
    """Apply ``blueprint`` when ``digest`` is its fresh digest (see the module).

    :raises StaleDigest: the bundle or what it resolves to changed; nothing was written.
    :raises BlueprintError: the plan has problems (invalid or blocked skills…).
    :raises LemonError: any refusal or failure on the way; nothing was written.
    """
    from lemon_core.blueprints.model import BlueprintError
    from lemon_core.install import pipeline, targets, transaction
    from lemon_core.mcp import manage
    from lemon_core.text import escape

    steps = steps or pipeline.STEPS
    plan = preview(blueprint, ctx, plugins, profile=profile, approve=approve, steps=steps)
    if plan.digest != digest.strip():
        raise StaleDigest(digest.strip(), plan.digest)
    if plan.problems:
        raise BlueprintError(escape(blueprint.id), list(plan.problems))
    entries = [dict(s.entry) for s in plan.servers if s.change != "unchanged"]
    writer = write_servers or manage.add_entries
    written: list[Any] = []

    def servers() -> None:
        if entries:
            written.extend(writer(ctx, entries, scope=plan.scope))  # type: ignore[arg-type]

    if not plan.skills:
        servers()
        return Applied(plan, None, tuple(written))
    manage.list_servers(ctx, plan.scope)  # type: ignore[arg-type]  # readable before any write
    scope = targets.scope_for(ctx, local=plan.scope == "project")
    content = BlueprintContent(plan, ctx, steps, plugins)
    keys = tuple(k for s in plan.skills for k in s.chosen)
    result = transaction.commit(transaction.WriteRequest(
        scope=scope, action="apply", consent=approve, content=content, replace=True,
        names=keys, expected=None, refresh=servers), ctx, plugins, steps)
    return Applied(plan, result, tuple(written))


__all__ = ["Applied", "BlueprintContent", "apply"]
