"""What already sits where a skill would be installed, and whether lemon may replace it.

lemon replaces only what it installed: a folder the scope's lockfile records. Anything else at
the target (a skill written by hand, a folder of other files, a plain file, a link) belongs to
the user and is refused with or without ``force``, saying what is there and what to do; the
message never suggests ``--force`` where ``--force`` would be refused too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from lemon_core.errors import LemonError, Option, Voiced
from lemon_core.state.records import LockRecord


class NotLemons(LemonError):
    """The target holds something lemon did not install; it is never replaced."""


class AlreadyInstalled(LemonError):
    """lemon installed a skill of that name already and ``force`` is off."""


def what_is_there(target: Path) -> str:
    """A short description of what is at ``target`` (which exists)."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return "something lemon cannot inspect"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if not stat.S_ISDIR(mode):
        return "a file" if stat.S_ISREG(mode) else "a special file"
    if os.path.lexists(target / "SKILL.md"):
        return "a skill folder lemon did not install (no lockfile record)"
    try:
        empty = not any(os.scandir(target))
    except OSError:
        empty = False
    return "an empty folder" if empty else "a folder of other files"


def refuse_existing(target: Path, key: str, force: bool, records: Mapping[str, LockRecord],
                    lockfile: Path) -> bool:
    """Whether ``target`` exists and may be replaced.

    :raises NotLemons: something lemon did not install is there (with or without ``force``).
    :raises LemonError: lemon installed it and ``force`` is off.
    """
    if not os.path.lexists(target):
        return False
    recorded = records.get(key) is not None
    real_folder = recorded and not os.path.islink(target) and os.path.isdir(target)
    if not real_folder:
        what = what_is_there(target)
        if recorded:
            what += f" where lemon installed the folder of {key!r}"
        raise NotLemons(
            f"{target} holds {what}; lemon replaces only skills it installed (recorded in "
            f"{lockfile}), so nothing was changed, with or without --force. Move or rename it "
            f"(it is yours: lemon never deletes it) and run the command again")
    if not force:
        raise AlreadyInstalled(
            f"{key!r} is already installed by lemon at {target}",
            advice=("to replace it pass ", Option("force"), ", or ",
                    Voiced(f"update it (update({key!r}))", f"run 'lemon skill update {key}'")))
    return True


__all__ = ["AlreadyInstalled", "NotLemons", "refuse_existing", "what_is_there"]
