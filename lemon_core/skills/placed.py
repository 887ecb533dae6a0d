"""The agent roots a listed skill was placed in (``lemon skill install --agent``), and the
listing folded so such a skill is shown once.

A link in an agent root to a skill lemon lists already is one real path, which the catalog
folds by itself (:func:`lemon_core.catalog.snapshot.build_entries`). A copy is another folder
with the same files: it is folded here, when the lockfile record of the same key names it as
a copy target and its ``SKILL.md`` is still the recorded one (``content_hash``), so it is
neither a second row, nor "shadowed", nor a second ``invalid`` row. A folder the user put
there instead, or a copy whose ``SKILL.md`` they edited, is listed as before.
"""

from __future__ import annotations

import hashlib
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


#: Copies: by key, each copy folder a record names and the SKILL.md hash it records.
Copies = Mapping[str, Mapping[str, "str | None"]]


def placed_copies(ctx: LemonContext, locks: Mapping[str, Mapping[str, LockRecord]]
                  ) -> dict[str, dict[str, str | None]]:
    """Every folder a record names as a copy target, by key, with the record's
    ``content_hash`` (empty when no record has one)."""
    out: dict[str, dict[str, str | None]] = {}
    for scope, records in locks.items():
        for key, record in records.items():
            for target in targets_of(ctx, scope, record):
                if target.mode == "copy":
                    out.setdefault(key, {})[target.path] = record.content_hash
    return out


def is_placed_copy(folder: str, key: str, copies: Copies) -> bool:
    """Whether ``folder`` is a copy lemon placed for ``key`` and its SKILL.md is unchanged."""
    mine = copies.get(key)
    if not mine or folder not in mine or mine[folder] is None:
        return False
    from lemon_core.fsio import read_bytes
    from lemon_core.fsio.read import FileProblem

    try:
        data = read_bytes(os.path.join(folder, "SKILL.md"), 16 * 1024 * 1024)
    except FileProblem:
        return False
    return data is not None and "sha256:" + hashlib.sha256(data).hexdigest() == mine[folder]


def unshadowed(key: str, shadowed: Sequence[str], copies: Copies) -> tuple[str, ...]:
    """``shadowed`` (SKILL.md paths) without those in a copy lemon placed for ``key``."""
    return tuple(path for path in shadowed
                 if not is_placed_copy(os.path.dirname(path), key, copies))


__all__ = ["Copies", "PlacedTarget", "is_placed_copy", "placed_copies", "targets_of",
           "unshadowed"]
