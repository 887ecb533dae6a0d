"""What a removal checks: that lemon installed what it would delete, and that nothing changed
while it asked (:func:`~lemon_core.install.transaction.commit` with ``removals``)."""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core.errors import LemonError
from lemon_core.install import edits, targets
from lemon_core.install.occupied import NotLemons, what_is_there
from lemon_core.state.lockfile import editable_records
from lemon_core.state.records import LockRecord


def not_lemons(scope: targets.Scope, key: str, target: Path,
               record: LockRecord | None) -> NotLemons | None:
    """The refusal when ``target`` holds something lemon did not install (None: it holds
    the folder ``record`` names, or nothing)."""
    if not os.path.lexists(target):
        return None
    if record is not None and not os.path.islink(target) and os.path.isdir(target):
        return None
    what = what_is_there(target)
    local = " --local" if scope.name == "project" else ""
    if record is not None:
        return NotLemons(
            f"{target} holds {what} where lemon installed the folder of {key!r}; lemon "
            f"deletes only what it installed, so nothing was changed. It is yours: move or "
            f"delete it by hand, then run 'lemon skill remove {key}{local}' again to drop the "
            f"record")
    return NotLemons(
        f"{target} holds {what}; lemon removes only skills it installed (recorded in "
        f"{scope.lockfile}), so nothing was deleted. It is yours: delete it by hand if you "
        f"mean to, or run 'lemon skill disable {key}{local}' to switch it off")


def check_target(scope: targets.Scope, key: str, target: Path,
                 record: LockRecord | None) -> edits.LocalEdits | None:
    """What removing ``key`` would delete: its local edits (falsy: none), None when nothing
    is there. :raises NotLemons: the target holds something lemon did not install."""
    refused = not_lemons(scope, key, target, record)
    if refused is not None:
        raise refused
    if record is None or not os.path.lexists(target):
        return None
    return edits.local_edits(target, record)


def unchanged(scope: targets.Scope, key: str, target: Path, record: LockRecord | None,
              checked: edits.LocalEdits | None) -> None:
    """Under the lock: refuse when the record, or what is at the target, changed while lemon
    was asking (what was approved is no longer what would be deleted)."""
    if editable_records(scope.lockfile).get(key) != record:
        raise LemonError(f"the record of {key!r} in {scope.lockfile} changed while lemon was "
                         f"asking; nothing was changed, run the command again")
    now = check_target(scope, key, target, record)
    if (now is None) != (checked is None):
        raise LemonError(f"{target} changed while lemon was asking; nothing was changed, run "
                         f"the command again")
    if checked is not None:
        edits.unchanged_since(checked, target)


__all__ = ["check_target", "not_lemons", "unchanged"]
