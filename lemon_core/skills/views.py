"""What one catalog snapshot yields, each made once and kept with it: :class:`SnapshotViews`.

A :class:`~lemon_core.skills.workspace.Workspace` keeps one :class:`SnapshotViews` per catalog,
replaced when the catalog's snapshot changes. Views of the snapshot alone are cached
properties (the failed skills, the relevance index); views that also depend on the settings,
lock files and environment keep the inputs they were made from and are reused only when the
next call's inputs are equal (:meth:`SnapshotViews.kept`).
"""

from __future__ import annotations

import functools
import os
from typing import Any, Generic, TypeVar

import attrs

from lemon_core.catalog.snapshot import Catalog, CatalogSnapshot
from lemon_core.catalog.walk import SKILL_FILE
from lemon_core.models import Diagnostic, SkillEntry
from lemon_core.text import unsafe_reason

T = TypeVar("T")


@attrs.frozen
class InvalidSkill:
    """A skill folder whose ``SKILL.md`` failed to load: never offered as a skill, but shown
    (``lemon skill list`` state ``invalid``) with why. ``diagnostics`` start with its errors."""

    key: str
    scope: str
    dir: str
    path: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def error(self) -> Diagnostic | None:
        return next((d for d in self.diagnostics if d.severity == "error"), None)

    @property
    def reason(self) -> str:
        """The first error's message (what the listing shows)."""
        first = self.error or (self.diagnostics[0] if self.diagnostics else None)
        return first.message if first is not None else "failed to load"


def invalid_skills(snapshot: CatalogSnapshot
                    ) -> tuple[tuple[InvalidSkill, ...], dict[str, str]]:
    """The skill folders that failed to load (in precedence order), and which key each
    skill-related diagnostic path belongs to.

    A failed skill is a SKILL.md the loader rejected, or a walk error about a folder's own
    ``SKILL.md`` (not a regular file, a link leading elsewhere…) whose folder name is a key.
    """
    keys: dict[str, str] = {}
    invalid: list[InvalidSkill] = []
    walk_paths = {d.path for d in snapshot.walk_diagnostics}  # lookalike keys, …
    if walk_paths:
        for parsed in snapshot.parsed:
            found = parsed.found
            if found.dir in walk_paths or found.skill_md in walk_paths:
                keys[found.skill_md] = keys[found.dir] = found.key
    # this runs once per snapshot over every SKILL.md: the few with diagnostics first
    for parsed in [p for p in snapshot.parsed if p.diagnostics or p.manifest is None]:
        found = parsed.found
        keys[found.skill_md] = keys[found.dir] = found.key
        if parsed.manifest is None:
            errors = sorted(parsed.diagnostics, key=lambda d: d.severity != "error")
            invalid.append(InvalidSkill(found.key, found.root.scope, found.dir,
                                        found.skill_md, tuple(errors)))
    for diagnostic in snapshot.walk_diagnostics:
        folder, name = os.path.split(diagnostic.path)
        key = os.path.basename(folder)
        if (diagnostic.severity == "error" and name == SKILL_FILE and key
                and unsafe_reason(key) is None and folder not in keys):
            root = next((r for r in snapshot.roots
                         if folder.startswith(str(r.path) + os.sep)), None)
            keys[diagnostic.path] = keys[folder] = key
            invalid.append(InvalidSkill(key, root.scope if root else "project", folder,
                                        diagnostic.path, (diagnostic,)))
    return tuple(invalid), keys


@attrs.frozen
class Kept(Generic[T]):
    """A view made from ``inputs`` (compared with ``==`` before it is reused)."""

    inputs: Any
    value: T


class SnapshotViews:
    """The views of one snapshot of one catalog."""

    def __init__(self, catalog: Catalog, snapshot: CatalogSnapshot,
                 analyses: dict[Any, Any] | None = None) -> None:
        self.catalog = catalog
        self.snapshot = snapshot
        self._analyses = analyses
        #: The statuses of the last listing, with the placed copies (``list_skills``).
        self.listing: Kept[tuple[Any, Any]] | None = None
        #: Key -> entry of every skill that may be suggested (``find_relevant``).
        self.suggestable: Kept[dict[str, SkillEntry]] | None = None

    @functools.cached_property
    def failed(self) -> tuple[tuple[InvalidSkill, ...], dict[str, str]]:
        """:func:`invalid_skills` of the snapshot."""
        return invalid_skills(self.snapshot)

    @property
    def invalid(self) -> tuple[InvalidSkill, ...]:
        return self.failed[0]

    def failed_copy(self, key: str) -> InvalidSkill | None:
        """The failed folder of ``key`` that comes first in precedence, or None."""
        return next((item for item in self.invalid if item.key == key), None)

    @functools.cached_property
    def search(self) -> Any:
        """The relevance index (:func:`lemon_core.search.snapshot_index.index_for`: loaded
        from beside the persistent cache, or built)."""
        from lemon_core.search.snapshot_index import index_for

        return index_for(self.catalog, self.snapshot, self._analyses)


__all__ = ["InvalidSkill", "Kept", "SnapshotViews", "invalid_skills"]
