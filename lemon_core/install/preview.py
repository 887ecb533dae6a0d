"""What a source's tree holds, without installing anything: ``lemon skill install SOURCE --list``.

The identifier is routed, asked about (stage ``fetch``, as an install asks) and fetched with
the install's own steps (:class:`~lemon_core.install.pipeline.InstallSteps`: ``resolve``,
``ask``, ``fetch``; the same sources, the same bounded fetch), into a private (0700) staging folder of the system's
temporary folder, never a skills folder. Every skill of the tree
(:func:`~lemon_core.install.select.find_skills`) is then checked as an install checks it (safe
tree, SKILL.md under lemon's manifest rules, the folder's name) and audited by the audit host;
the staging folder is removed whatever happens. No skills folder, lockfile or catalog is
written, and nothing from the tree is ever run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.approval import Approve, Consent, WriteApproval
from lemon_core.errors import LemonError
from lemon_core.install import checks, gate, pipeline, router, select, staging
from lemon_core.manifest.lenient import load_for_install, relaxed_warning
from lemon_core.protocols import Finding
from lemon_core.source_kit.location import public_url

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import ProgressCallback

#: The ``scope`` of the fetch approval a preview asks for: nothing is installed anywhere.
SCOPE = "preview"


@attrs.frozen
class PreviewRow:
    """One skill of the tree. ``folder`` is relative to the tree ("" is its root); ``key`` the
    name it would install as (its frontmatter ``name``, which may differ from its folder's);
    ``valid`` whether lemon would install it (``reason`` says why not); ``verdict`` the
    audit's ``pass``/``warn``/``block``; ``warnings`` what an install would warn about (a
    folder named unlike the skill, a rule stricter than the agents); ``inside`` the folder of
    the skill holding it, for a nested skill (installed with that skill by ``--all``, on its
    own only when named with ``--skill``). Text is as found: escape it to show it."""

    key: str
    folder: str
    description: str | None
    valid: bool
    reason: str | None
    verdict: str
    findings: tuple[Finding, ...] = ()
    warnings: tuple[str, ...] = ()
    inside: str | None = None


@attrs.frozen
class Preview:
    """The skills of the tree ``identifier`` names, sorted by folder."""

    identifier: str
    source: str
    canonical_id: str | None
    trust: str
    revision: str | None
    rows: tuple[PreviewRow, ...] = ()
    notes: tuple[str, ...] = ()


def _row(tree: Path, subdir: str, fallback: str, ctx: LemonContext,
         plugins: Plugins, inside: str | None = None) -> PreviewRow:
    folder = tree / subdir if subdir else tree
    folder_name = subdir.rsplit("/", 1)[-1] or None
    loaded, _ = load_for_install(folder / select.SKILL_FILE,
                                 key=folder_name or fallback or "skill")
    manifest = loaded.manifest
    description = manifest.description if manifest is not None else None
    key = (manifest.name if manifest is not None and manifest.name else None) or (
        folder_name or fallback or "skill")
    reason = None
    scan = None
    warnings: tuple[str, ...] = ()
    try:
        scan = checks.check_tree(folder, repr(subdir or fallback or "the tree"))
        checks.check_lfs(folder, scan, repr(subdir or fallback or "the tree"))
        judged = checks.judge_manifest(folder, folder_name=folder_name, fallback=fallback)
        key = judged.key
        renamed = judged.renamed and inside is None  # a nested one: "inside PARENT" says it
        warnings = (*((checks.renamed_warning(key, subdir),) if renamed else ()),
                    *((relaxed_warning(key, judged.relaxed, key),) if judged.relaxed else ()))
    except LemonError as exc:
        reason = str(exc)
    report = gate.audit(folder, ctx, key=key, scan=scan, auditors=plugins.auditors())
    return PreviewRow(key=key, folder=subdir, description=description, valid=reason is None,
                      reason=reason, verdict=report.verdict, findings=report.findings,
                      warnings=warnings, inside=inside)


def _clashes(rows: list[PreviewRow]) -> list[PreviewRow]:
    """Two valid skills of the tree with one key cannot both be installed: say so on each
    (a nested skill, installed only when named, is not counted)."""
    counts: dict[str, int] = {}
    for row in rows:
        if row.inside is None:
            counts[row.key] = counts.get(row.key, 0) + 1
    return [attrs.evolve(row, valid=False, reason=f"another skill of the tree is named "
                         f"{row.key!r}; only one of them can be installed")
            if row.valid and row.inside is None and counts[row.key] > 1 else row
            for row in rows]


def preview(identifier: str, ctx: LemonContext, *, plugins: Plugins,
            approve: Approve = None, progress: ProgressCallback | None = None,
            steps: pipeline.InstallSteps = pipeline.STEPS) -> Preview:
    """The skills of the tree ``identifier`` names (see the module docstring).

    :raises ApprovalRefused: fetching was not approved (nothing was fetched).
    :raises UsageError: the identifier is not understood (or names a folder and GitHub both).
    """
    source, ref = steps.resolve(router.shorthand(identifier, ctx), ctx, plugins)
    trust = source.trust_level(ref)
    shown = public_url(identifier.strip())
    if trust != "builtin":
        steps.ask(Consent.of(approve), WriteApproval(
            stage="fetch", identifier=shown, source=source.name, trust=trust, scope=SCOPE,
            canonical_id=ref.canonical_id, revision=ref.revision))
    folder = Path(tempfile.mkdtemp(prefix="lemon-preview-"))
    try:
        tree = folder / staging.TREE
        os.mkdir(tree, 0o700)
        fetched = steps.fetch(source, ref, tree, ctx, progress)
        found = select.find_skills(tree)
        nested = select.find_nested(tree, found)
        rows = _clashes(sorted(
            [_row(tree, subdir, ref.name or "", ctx, plugins) for subdir in found]
            + [_row(tree, subdir, ref.name or "", ctx, plugins, inside)
               for subdir, inside in nested.items()], key=lambda r: r.folder))
    finally:
        staging.remove_tree(folder)
    return Preview(identifier=shown, source=source.name, canonical_id=ref.canonical_id,
                   trust=trust, revision=fetched.revision, rows=tuple(rows),
                   notes=tuple(fetched.notes))


__all__ = ["SCOPE", "Preview", "PreviewRow", "preview"]
