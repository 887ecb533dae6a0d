"""``lemon blueprint preview``: a bundle linted, audited and resolved, what applying it would
change, and its digest; nothing is written.

Each ``[[skills]]`` source is resolved (a ``./path`` against the bundle folder, never out of
it; anything else as ``lemon skill install`` resolves it, a folder outside the bundle
refused) and fetched into a private temporary folder by the install preview
(:mod:`lemon_core.install.preview`): every skill of it checked under lemon's manifest rules
and audited. Each ``[[mcp.servers]]`` entry is checked against the schema of lemon's
``mcp.json`` and compared with the scope's file. The digest covers every file the bundle
ships and this resolved plan (revisions fetched, keys, what changes), so an apply with it
refuses when either moved.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.blueprints.digest import digest
from lemon_core.blueprints.model import Blueprint, Profile, SkillEntry
from lemon_core.blueprints.parse import SAFE_NAME, bundles_dir, check_id, load
from lemon_core.errors import UsageError
from lemon_core.text import escape

if TYPE_CHECKING:
    from lemon_core.approval import Approve
    from lemon_core.context import LemonContext
    from lemon_core.install.pipeline import InstallSteps
    from lemon_core.install.preview import PreviewRow
    from lemon_core.plugin_registry import Plugins


@attrs.frozen
class SkillPlan:
    """One ``[[skills]]`` entry resolved: ``identifier`` as shown (``./path`` for the
    bundle's own), ``resolved`` as routed (an absolute path for the bundle's own), what its
    tree holds, the keys chosen and, per key, ``install`` or ``replace``."""

    label: str
    identifier: str
    resolved: str
    source: str
    trust: str
    canonical_id: str | None
    revision: str | None
    rows: tuple[PreviewRow, ...]
    chosen: tuple[str, ...]
    changes: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "identifier": self.identifier, "source": self.source,
                "trust": self.trust, "canonical_id": self.canonical_id,
                "revision": self.revision, "skills": list(self.chosen),
                "changes": dict(self.changes),
                "verdicts": {r.key: r.verdict for r in self.rows if r.key in self.chosen}}


@attrs.frozen
class ServerPlan:
    """One server: its entry as it would be written and ``add``/``replace``/``unchanged``."""

    name: str
    entry: Mapping[str, Any]
    change: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "entry": dict(self.entry), "change": self.change}


@attrs.frozen
class Plan:
    """What applying ``blueprint`` with ``profile`` would do, its ``problems`` (an apply
    refuses while there are any) and its ``digest``."""

    blueprint: Blueprint
    profile: Profile
    skills: tuple[SkillPlan, ...]
    servers: tuple[ServerPlan, ...]
    problems: tuple[str, ...]
    digest: str

    @property
    def scope(self) -> str:
        return self.profile.scope

    def body(self) -> dict[str, Any]:
        """The resolved plan the digest covers."""
        return {"id": self.blueprint.id, "profile": self.profile.name, "scope": self.scope,
                "skills": [s.to_json() for s in self.skills],
                "servers": [s.to_json() for s in self.servers]}

    def to_json(self) -> dict[str, Any]:
        return {**self.body(), "name": self.blueprint.name,
                "description": self.blueprint.description,
                "files": [f.path for f in self.blueprint.files],
                "problems": list(self.problems), "digest": self.digest}


def bundle_root(ctx: LemonContext, bundle_id: str) -> Path:
    """``<agent dir>/bundles/<id>`` (the id checked: anything else is a UsageError)."""
    return bundles_dir(ctx.agent_dir) / check_id(bundle_id)


def open_bundle(ctx: LemonContext, bundle_id: str | None = None,
                path: Path | None = None) -> Blueprint:
    """The bundle named ``bundle_id`` in the agent dir, or the folder ``path``."""
    if (bundle_id is None) == (path is None):
        raise UsageError("name a blueprint by its id or pass --path DIR, one of the two")
    if path is not None:
        root = Path(os.path.abspath(ctx.expand_path(str(path))))
        return load(root, root.name if SAFE_NAME.fullmatch(root.name) else "local")
    assert bundle_id is not None
    return load(bundle_root(ctx, bundle_id), bundle_id)


def local_path(blueprint: Blueprint, source: str) -> tuple[str, str] | None:
    """A ``./path`` source: (the folder to route, ``./path`` as shown); None for any other
    identifier. An absolute path, ``~``, or a path leaving the bundle is a UsageError."""
    if source.startswith(("/", "~", "\\")) or os.path.isabs(source) or (
            len(source) > 1 and source[1] == ":"):
        raise UsageError(f"skill source {escape(source)}: an absolute path is refused; ship "
                         f"the skill in the bundle and name it ./PATH")
    if not (source in (".", "..") or source.startswith(("./", "../"))):
        return None
    relative = posixpath.normpath(source)
    if relative == ".." or relative.startswith("../"):
        raise UsageError(f"skill source {escape(source)} leaves the bundle folder; ship the "
                         f"skill in the bundle")
    prefix = "" if relative == "." else relative + "/"
    if not any(f.path.startswith(prefix) for f in blueprint.files):
        raise UsageError(f"skill source {escape(source)}: the bundle has no such folder")
    shown = "./" if relative == "." else "./" + relative
    return str(blueprint.root / relative), shown


def _chosen(entry: SkillEntry, rows: tuple[PreviewRow, ...],
            problems: list[str]) -> tuple[str, ...]:
    top = [r for r in rows if r.inside is None]
    if not entry.skills:
        picked = top
    else:
        picked = []
        for word in entry.skills:
            match = [r for r in rows if word in (r.key, r.folder)]
            if not match:
                problems.append(f"{escape(entry.label)}: no skill {escape(word)} in "
                                f"{escape(entry.source)}")
            picked += match
    if not picked:
        problems.append(f"{escape(entry.label)}: {escape(entry.source)} holds no skill")
    for row in picked:
        if not row.valid:
            problems.append(f"{escape(row.key)} ({escape(entry.label)}): {row.reason}")
        elif row.verdict == "block":
            problems.append(f"{escape(row.key)} ({escape(entry.label)}): blocked by the "
                            f"security audit")
    return tuple(r.key for r in picked)


def _servers(ctx: LemonContext, blueprint: Blueprint, profile: Profile) -> list[ServerPlan]:
    from lemon_core.mcp.config import read_file
    from lemon_core.mcp.schema import entry_of

    current = read_file(ctx, profile.scope)  # type: ignore[arg-type]
    out = []
    for entry in blueprint.servers:
        name = entry["name"]
        if profile.servers is not None and name not in profile.servers:
            continue
        index = current.index_of(name)
        change = "add" if index is None else (
            "unchanged" if entry_of(current.servers[index]) == dict(entry) else "replace")
        out.append(ServerPlan(name, entry, change))
    return out


def preview(blueprint: Blueprint, ctx: LemonContext, plugins: Plugins, *,
            profile: str | None = None, approve: Approve = None,
            steps: InstallSteps | None = None) -> Plan:
    """Resolve, lint and audit ``blueprint`` with ``profile`` (see the module); the bundle's
    own folders are fetched without asking, any other source after the ``fetch`` approval."""
    from lemon_core.install import pipeline, router, targets
    from lemon_core.install.preview import preview as preview_tree

    chosen_profile = blueprint.profile(profile)
    scope = targets.scope_for(ctx, local=chosen_profile.scope == "project")
    problems: list[str] = []
    skills: list[SkillPlan] = []
    seen: dict[str, str] = {}
    for entry in blueprint.skills:
        if chosen_profile.skills is not None and entry.label not in chosen_profile.skills:
            continue
        local = local_path(blueprint, entry.source)
        if local is None:
            routed = router.shorthand(entry.source, ctx)
            source, _ = router.resolve(routed, ctx, plugins=plugins)
            if source.name == "local":
                raise UsageError(f"skill source {escape(entry.source)} names a folder outside "
                                 f"the bundle; ship the skill in the bundle as ./PATH")
            resolved, consent = routed, approve
        else:
            resolved, consent = local[0], True
        found = preview_tree(resolved, ctx, plugins=plugins, approve=consent,
                             steps=steps or pipeline.STEPS)
        keys = _chosen(entry, found.rows, problems)
        for key in keys:
            if key in seen:
                problems.append(f"{escape(key)} comes from both {escape(seen[key])} and "
                                f"{escape(entry.label)}")
            seen[key] = entry.label
        changes = {k: "replace" if os.path.lexists(scope.target(k)) else "install"
                   for k in keys}
        canonical = None if local else found.canonical_id  # the bundle's files cover it
        skills.append(SkillPlan(entry.label, local[1] if local else found.identifier,
                                resolved, found.source, found.trust, canonical,
                                found.revision, found.rows, keys, changes))
    servers = _servers(ctx, blueprint, chosen_profile)
    plan = Plan(blueprint, chosen_profile, tuple(skills), tuple(servers), tuple(problems), "")
    return attrs.evolve(plan, digest=digest(blueprint.files, plan.body()))


__all__ = ["Plan", "ServerPlan", "SkillPlan", "bundle_root", "local_path", "open_bundle",
           "preview"]
