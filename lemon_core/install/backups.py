"""The copies activation moves aside, and sweeping those a killed install left behind.

(A removal moves the skill aside the same way, as ``.<name>.removing-…``: see the end.)

Activation renames an installed skill to ``.<name>.backup-<random>-<pid>-<start>-<host>``
before it moves the new copy in, and deletes it once the lockfile records the new one. The
name itself says which process made it (pid, start time, a hash of the host name), written by
the same rename that moves the copy, so no crash can separate a backup from its owner.

A process killed (``kill -9``) while it holds a backup leaves it. :func:`sweep` (run by the
next install, update, sync or remove in the same skills folder) settles each backup whose
owner is a process of this host that no longer runs:

- the skill's folder is missing (killed between the two renames) and this is its only
  backup: the backup is renamed back, so the skill is as it was before;
- the skill's folder is there and is exactly what the lockfile records (killed after the
  record, before the backup was deleted): the backup is deleted;
- anything else (several backups, or a folder the lockfile does not record: killed after the
  new copy moved in but before it was recorded) is left as it is, with a note saying what to
  do: lemon cannot tell which copy the user wants.

A removal killed after it moved the skill aside leaves ``.<name>.removing-…``: it is renamed
back when the skill's record is still there and its folder missing (the removal never took
effect), and deleted otherwise (the record was deleted, or the skill was installed again).

A backup whose owner still runs (an install in the middle of its activation) is never
touched, nor one of another host or without an owner in its name (an older lemon's: the
install of that very skill still puts it back, under the skill's lock). Each settled backup
is done under the skill's lock; a lock the killed process still holds (it died holding it)
is taken over and removed only when it records that same process.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import attrs

from lemon_core.errors import BusyError, LemonError
from lemon_core.fsio.write import break_lock, file_lock, lock_holder
from lemon_core.install.moves import delete, exists, move
from lemon_core.install.owner import Owner, hostname, owner_gone
from lemon_core.install.staging import fsync_dir, stat_is_dir
from lemon_core.state.records import LockRecord

MARK = ".backup-"
#: What ``remove`` renames a skill to before it deletes its record, then the folder.
REMOVING = ".removing-"


def host_id(host: str) -> str:
    """Eight hex digits standing for a host name inside a file name."""
    return hashlib.sha256(host.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def backup_path(target: Path, owner: Owner, mark: str = MARK) -> Path:
    """A hidden sibling of ``target`` that does not exist yet, naming ``owner`` (``mark``:
    :data:`MARK` for an install's backup, :data:`REMOVING` for a removal's)."""
    tag = f"{owner.pid}-{'x' if owner.started is None else owner.started}-{host_id(owner.host)}"
    while True:
        candidate = target.with_name(f".{target.name}{mark}{os.urandom(4).hex()}-{tag}")
        if not os.path.lexists(candidate):
            return candidate


@attrs.frozen
class Backup:
    """A backup found in a skills folder: the skill it belongs to and the process that made
    it (``owner`` None: not told by the name, or another host's)."""

    path: Path
    target: Path
    owner: Owner | None
    mark: str = MARK


def parse(skills_dir: Path, name: str) -> Backup | None:
    """The backup (or removal leftover) the folder entry ``name`` is, or None."""
    if not name.startswith("."):
        return None
    mark = MARK if MARK in name else REMOVING if REMOVING in name else None
    if mark is None:
        return None
    target, _, rest = name[1:].rpartition(mark)
    if not target:
        return None
    owner = None
    parts = rest.split("-")
    if len(parts) == 4 and parts[1].isdigit() and (parts[2].isdigit() or parts[2] == "x"):
        me = hostname()
        if parts[3] == host_id(me):
            owner = Owner(int(parts[1]), me, None if parts[2] == "x" else int(parts[2]))
    return Backup(skills_dir / name, skills_dir / target, owner, mark)


def find(skills_dir: Path) -> list[Backup]:
    """Every backup folder in ``skills_dir``, sorted by name."""
    try:
        names = sorted(os.listdir(skills_dir))
    except OSError:
        return []
    found = [parse(skills_dir, name) for name in names]
    return [b for b in found if b is not None and stat_is_dir(b.path)]


def sweep(skills_dir: Path, records: Mapping[str, LockRecord],
          root: Path | None = None) -> list[str]:
    """Settle the backups of killed installs in ``skills_dir`` (see the module) against the
    scope's lockfile ``records``; returns one note for each backup restored, removed or left.
    ``root``: a project's root, beneath which every rename and delete is made without
    following a link (:mod:`lemon_core.install.moves`)."""
    notes = []
    for backup in find(skills_dir):
        owner = backup.owner
        if owner is None or not owner_gone(owner):
            continue
        with _claimed(backup.target, owner, root) as claimed:
            if claimed and exists(backup.path, root):
                settle = _settle if backup.mark == MARK else _settle_removal
                notes.append(settle(backup, owner, records.get(backup.target.name), root))
    return notes


@contextlib.contextmanager
def _claimed(target: Path, owner: Owner, root: Path | None = None) -> Iterator[bool]:
    """Hold the skill's lock for the block (yields True); take over the lock when the dead
    ``owner`` still holds it (removed after the block); yields False when anyone else does."""
    skill = target.with_name(f".{target.name}")
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(file_lock(skill, timeout=0, root=root))
        except BusyError:
            holder = lock_holder(skill)
            if holder is None or holder.pid != owner.pid or holder.host != owner.host:
                yield False
                return
            stack.callback(break_lock, skill, holder)
        yield True


def _settle(backup: Backup, owner: Owner, record: LockRecord | None,
            root: Path | None = None) -> str:
    who = f"process {owner.pid} on {owner.host}"
    name = backup.target.name
    if not exists(backup.target, root):
        others = [b for b in find(backup.path.parent)
                  if b.target == backup.target and b.mark == MARK]
        if len(others) != 1:
            return (f"{name} is missing and {len(others)} backups of it are left "
                    f"({', '.join(b.path.name for b in others)}): rename the one to keep to "
                    f"{name}, delete the others")
        move(backup.path, backup.target, root)
        fsync_dir(backup.target.parent)
        return (f"restored {backup.target} from {backup.path.name}, where an interrupted "
                f"install ({who}) had moved it")
    if record is not None and record.bundle_hash == _bundle_hash(backup.target):
        delete(backup.path, root)
        fsync_dir(backup.path.parent)
        return (f"removed {backup.path}, the old copy of {name} an interrupted install ({who}) "
                f"left after recording the new one")
    return (f"left {backup.path}: an install ({who}) was interrupted after moving a new copy "
            f"of {name} in but before recording it; keep the new copy by deleting that folder, "
            f"or put the old one back by renaming it to {name}")


def _settle_removal(backup: Backup, owner: Owner, record: LockRecord | None,
                    root: Path | None = None) -> str:
    """A removal killed after it moved the skill aside: undone when the record is still there
    and the skill's folder is missing (the removal never took effect), finished otherwise."""
    who = f"process {owner.pid} on {owner.host}"
    name = backup.target.name
    others = [b for b in find(backup.path.parent)
              if b.target == backup.target and b.mark == REMOVING]
    if record is not None and not exists(backup.target, root):
        if len(others) != 1:
            return (f"{name} is recorded but missing and {len(others)} copies an interrupted "
                    f"removal moved aside are left ({', '.join(b.path.name for b in others)}): "
                    f"rename the one to keep to {name}, delete the others")
        move(backup.path, backup.target, root)
        fsync_dir(backup.target.parent)
        return (f"restored {backup.target}: a removal ({who}) was interrupted before it "
                f"deleted the skill's record")
    delete(backup.path, root)
    fsync_dir(backup.path.parent)
    return f"removed {backup.path}, what an interrupted removal of {name} ({who}) left"


def _bundle_hash(folder: Path) -> str | None:
    """The bundle hash of ``folder`` now, or None when it is no clean bundle."""
    from lemon_core.install.checks import check_tree, hash_bundle

    try:
        return hash_bundle(folder, check_tree(folder, repr(folder.name)))
    except LemonError:
        return None


__all__ = ["MARK", "REMOVING", "Backup", "backup_path", "find", "host_id", "parse", "sweep"]
