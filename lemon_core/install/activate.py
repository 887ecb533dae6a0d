"""Atomic activation: staged folders become skills, or nothing changes.

:class:`Activation` renames an existing skill folder to a hidden backup whose name records this
process (``.<name>.backup-<random>-<pid>-<start>-<host>``, see
:mod:`lemon_core.install.backups`), renames the staged folder into its place and fsyncs the
skills folder; :meth:`Activation.rollback` puts every backup back (removing what was
activated), :meth:`Activation.commit` deletes the backups. The pipeline commits only after the
lockfile record and the catalog refresh succeeded, and rolls back on any failure or Ctrl-C;
:func:`recover` puts back what a killed install (``kill -9`` mid-activation) left aside, for
the skill being installed; :func:`lemon_core.install.backups.sweep` settles the backups of the
whole skills folder.

In a project (``root`` given), every rename and delete is made relative to the descriptor of
the skills folder reached beneath the project root without following a link
(:mod:`lemon_core.fsio.beneath`), so a ``.lemon/skill`` swapped for a link to
``~/.claude/skills`` is refused, not written through.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from lemon_core.install.backups import backup_path
from lemon_core.install.moves import delete, exists, move
from lemon_core.install.owner import Owner, this_process
from lemon_core.install.staging import fsync_dir


def recover(target: Path, root: Path | None = None) -> bool:
    """Put back the copy an install killed mid-activation left aside: when ``target`` is
    missing and exactly one hidden backup of it exists, rename it back. Call it holding the
    skill's lock. Returns whether it did."""
    if exists(target, root):
        return False
    prefix = f".{target.name}.backup-"
    try:
        backups = [n for n in os.listdir(target.parent) if n.startswith(prefix)]
    except OSError:
        return False
    if len(backups) != 1:
        return False
    move(target.parent / backups[0], target, root)
    fsync_dir(target.parent)
    return True


class Activation:
    """The folders activated so far in one install, and how to undo them."""

    def __init__(self, root: Path | None = None) -> None:
        """``root``: the project root the skills folder lies beneath (None: global)."""
        self.done: list[tuple[Path, Path | None]] = []
        self._owner: Owner | None = None
        self.root = root

    def activate(self, staged: Path, target: Path) -> None:
        backup = None
        os.chmod(staged, 0o755)  # the staging folder was private (0700); a skill is not
        if exists(target, self.root):
            if self._owner is None:
                self._owner = this_process()
            backup = backup_path(target, self._owner)
            move(target, backup, self.root)
        try:
            move(staged, target, self.root)
        except BaseException:
            if backup is not None:
                move(backup, target, self.root)
            raise
        self.done.append((target, backup))
        fsync_dir(target.parent)

    def rollback(self) -> None:
        """Undo every activation, newest first (best effort: every step is tried)."""
        while self.done:
            target, backup = self.done.pop()
            with contextlib.suppress(Exception):
                delete(target, self.root)
            if backup is not None:
                with contextlib.suppress(Exception):
                    move(backup, target, self.root)
            fsync_dir(target.parent)

    def commit(self) -> None:
        """Keep the activated folders; delete the backups."""
        done, self.done = self.done, []
        for _, backup in done:
            if backup is not None:
                with contextlib.suppress(Exception):
                    delete(backup, self.root)


__all__ = ["Activation", "recover"]
