"""``sync``: make the installed skills exactly what the lockfile records.

A skill whose folder is missing or whose bundle hash is not the recorded one is reinstalled at
its recorded commit (``revision=resolved_commit``) and refused unless the fetched bundle is
exactly the recorded ``bundle_hash``. Skills recorded with one identifier and commit (a tree
of several skills installed together) are installed from one fetch. ``frozen`` changes
nothing: it reports every difference (a missing skill, a different bundle, a skill folder
without a record) and fails on any.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import LemonError
from lemon_core.install import approval, outdated, pipeline, router

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins


@attrs.frozen
class Difference:
    """``kind``: ``missing``, ``bundle`` (installed bundle is not the recorded one) or
    ``extra`` (a skill folder in a lemon skills folder with no record)."""

    key: str
    scope: str
    kind: str
    recorded: str | None = None
    found: str | None = None


@attrs.frozen
class SyncResult:
    differences: tuple[Difference, ...]
    installed: tuple[str, ...] = ()
    fetches: int = 0


class OutOfSync(LemonError):
    """``sync --frozen`` found the installed skills differ from the lockfile."""

    def __init__(self, message: str, differences: tuple[Difference, ...]) -> None:
        super().__init__(message)
        self.differences = differences


def differences(ctx: LemonContext, local: bool | None = None) -> tuple[
        list[outdated.Installed], list[Difference]]:
    """The records that need installing, and every difference (read only)."""
    items = outdated.installed(ctx, local=local)
    needed, found = [], []
    for item in items:
        now = outdated.current_hash(item.path)
        if now != item.record.bundle_hash:
            needed.append(item)
            found.append(Difference(item.record.key, item.scope.name,
                                    "missing" if now is None else "bundle",
                                    item.record.bundle_hash, now))
    for scope in outdated.scopes(ctx, local):
        recorded = {i.record.key for i in items if i.scope == scope}
        try:
            names = sorted(os.listdir(scope.skills_dir))
        except OSError:
            continue
        for name in names:
            skill = scope.skills_dir / name / "SKILL.md"
            if not name.startswith(".") and name not in recorded and os.path.lexists(skill):
                found.append(Difference(name, scope.name, "extra"))
    return needed, found


def _describe(found: list[Difference]) -> str:
    words = {"missing": "not installed", "bundle": "installed bundle differs",
             "extra": "installed without a record"}
    return "; ".join(f"{d.key} ({d.scope}): {words[d.kind]}" for d in found)


def sync(ctx: LemonContext, *, plugins: Plugins, frozen: bool = False,
         local: bool | None = None, approve: approval.Approver = None, progress: Any = None,
         refresh: Callable[[], None] | None = None) -> SyncResult:
    """Install what the lockfile records and is not installed exactly (see the module)."""
    needed, found = differences(ctx, local)
    if frozen:
        # A skill folder without a record (a skill written by hand and committed with the
        # project) is reported, not a failure: the lockfile speaks only for what lemon installed.
        if any(d.kind != "extra" for d in found):
            raise OutOfSync(f"the installed skills differ from the lockfile: {_describe(found)}"
                            f"; nothing was changed (run 'lemon skill sync' to install the "
                            f"recorded skills)", tuple(found))
        return SyncResult(tuple(found))
    groups: dict[tuple[Any, ...], list[outdated.Installed]] = {}
    for item in needed:
        record = item.record
        group = (item.scope.name, record.source_kind, outdated.identifier_of(record),
                 record.resolved_commit)
        groups.setdefault(group, []).append(item)
    done: list[str] = []
    for (_, _, identifier, commit), items in groups.items():
        _, ref = router.resolve(identifier, ctx, plugins=plugins)
        subdirs = [outdated.tree_subdir(i.record.subdirectory, ref) for i in items]
        expected = {i.record.key: i.record.bundle_hash or "" for i in items}
        result = pipeline.install(
            identifier, ctx, plugins=plugins, local=items[0].scope.local, force=True,
            approve=approve, skills=tuple(s for s in subdirs if s), progress=progress,
            revision=commit, expected_bundle_hash=expected, refresh=refresh)
        done.extend(r.key for r in result.all)
    return SyncResult(tuple(found), tuple(done), len(groups))


__all__ = ["Difference", "OutOfSync", "SyncResult", "differences", "sync"]
