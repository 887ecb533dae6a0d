"""The agent roots a listed skill was placed in (``lemon skill install --agent``), and the
listing folded so such a skill is shown once.

A link in an agent root to a skill lemon lists already is one real path, which the catalog
folds by itself (:func:`lemon_core.catalog.snapshot.build_entries`). A copy is another folder
with the same files: it is folded here, by the lockfile record that names it as a target of
the same key, so it is neither a second row, nor "shadowed", nor a second ``invalid`` row.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs

from lemon_core.errors import LemonError

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.state.records import LockRecord


@attrs.frozen
class PlacedTarget:
    """One recorded target of a skill: the agent, the path it follows from, the mode."""

    agent: str
    path: str
    mode: str

    def to_json(self) -> dict[str, str]:
        return {"agent": self.agent, "path": self.path, "mode": self.mode}


def targets_of(ctx: LemonContext, scope: str, record: LockRecord | None
               ) -> tuple[PlacedTarget, ...]:
    """The targets ``record`` (of the ``project`` or ``global`` lockfile) names, with their
    paths; a target whose root cannot be told (an agent this lemon does not know, an unusable
    home) is left out."""
    if record is None or not record.targets:
        return ()
    from lemon_core.catalog.agent_roots import agent_root

    out = []
    for target in record.targets:
        try:
            root = agent_root(ctx, target.agent, local=scope == "project")
        except LemonError:
            continue
        out.append(PlacedTarget(target.agent, str(root / record.key), target.mode))
    return tuple(out)


def placed_dirs(ctx: LemonContext, locks: Mapping[str, Mapping[str, LockRecord]]
                ) -> dict[str, set[str]]:
    """Every folder a record names as a target, by key (empty when no record has one)."""
    out: dict[str, set[str]] = {}
    for scope, records in locks.items():
        for key, record in records.items():
            for target in targets_of(ctx, scope, record):
                out.setdefault(key, set()).add(target.path)
    return out


def unshadowed(shadowed: Sequence[str], placed: set[str]) -> tuple[str, ...]:
    """``shadowed`` (SKILL.md paths) without those in a folder lemon placed for the key."""
    return tuple(path for path in shadowed if os.path.dirname(path) not in placed)


__all__ = ["PlacedTarget", "placed_dirs", "targets_of", "unshadowed"]
