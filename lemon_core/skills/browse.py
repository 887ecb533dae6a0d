"""``browse``: the discovered skills grouped by category, and what the not-ready ones lack.

A skill's category is, first found: its ``metadata.lemon.category``; for a skill installed from
the Hermes catalog, the catalog's category (the folders between the collection and the skill
in its ``hermes:`` identifier, ``other`` when there are none); the group folder it sits in
below its skills root (grouped roots); else ``uncategorized``. A skill is *not ready* when
its state is ``not_ready`` (a binary, environment variable, config value or tool is missing),
``platform_incompatible`` or ``blocked`` (by its audit); ``lacks`` says what, in words.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.models import SkillEntry, SkillStatus
    from lemon_core.skills.workspace import Workspace
    from lemon_core.state.records import LockRecord

UNCATEGORIZED = "uncategorized"
NOT_READY_STATES = ("not_ready", "platform_incompatible", "blocked")


@attrs.frozen
class BrowsedSkill:
    key: str
    name: str
    description: str
    category: str
    #: where the category came from: ``manifest``, ``hermes``, ``folder`` or ``none``
    category_from: str
    state: str
    scope: str
    lacks: tuple[str, ...] = ()


@attrs.frozen
class Browse:
    """The skills shown (sorted by category, then key) and every category's count (of the
    whole catalog, before ``category``/``not_ready`` narrowed the skills shown)."""

    skills: tuple[BrowsedSkill, ...]
    categories: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"categories": [{"name": n, "count": c} for n, c in self.categories],
                "skills": [attrs.asdict(s) for s in self.skills], "count": len(self.skills)}


def category_of(entry: SkillEntry, record: LockRecord | None) -> tuple[str, str]:
    """(category, where it came from) of one skill."""
    if entry.manifest.category:
        return entry.manifest.category, "manifest"
    source_id = (record.source_id or "") if record is not None else ""
    if record is not None and record.source_kind == "hermes" and source_id.startswith("hermes:"):
        segments = source_id[len("hermes:"):].split("/")[1:]
        return "/".join(segments[:-1]) or "other", "hermes"
    group = os.path.relpath(os.path.dirname(entry.dir), entry.root)
    if group not in (".", "") and not group.startswith(".."):
        return Path(group).as_posix(), "folder"
    return UNCATEGORIZED, "none"


def lacks(status: SkillStatus) -> tuple[str, ...]:
    """What keeps a skill from being ready, one phrase each."""
    found = [f"binary {b}" for b in status.missing_bins]
    found += [f"environment variable {v}" for v in status.missing_env_vars]
    found += [f"config {c}" for c in status.missing_config
              if c not in status.missing_env_vars]
    found += [f"tool {t}" for t in status.missing_tools]
    if not status.platform_ok:
        found.append("a supported platform")
    if status.state == "blocked":
        found.append("an audit that does not block it")
    return tuple(found)


def browse(ctx: LemonContext | None = None, *, category: str | None = None,
           not_ready: bool = False, persistent: bool = False,
           workspace: Workspace | None = None) -> Browse:
    """The catalog by category; ``category`` keeps one (exact), ``not_ready`` only the skills
    that are not ready."""
    from lemon_core.skills.api import list_skills
    from lemon_core.skills.workspace import workspace_for

    ws = workspace_for(ctx, None, workspace)
    listing = list_skills(persistent=persistent, workspace=ws)
    state = ws.state()
    rows = []
    for item in listing.skills:
        name, origin = category_of(item.entry, state.lock_record(item.entry))
        rows.append(BrowsedSkill(item.entry.key, item.entry.name, item.entry.description, name,
                                 origin, item.status.state, item.scope, lacks(item.status)))
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.category] = counts.get(row.category, 0) + 1
    shown = [r for r in rows if (category is None or r.category == category)
             and (not not_ready or r.state in NOT_READY_STATES)]
    shown.sort(key=lambda r: (r.category, r.key))
    return Browse(tuple(shown), tuple(sorted(counts.items())))


__all__ = ["NOT_READY_STATES", "UNCATEGORIZED", "Browse", "BrowsedSkill", "browse",
           "category_of", "lacks"]
