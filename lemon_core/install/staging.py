"""The private staging folder of one install, beside the skills it will become.

``.<name>.staging-<random>`` inside the scope's skills folder: the same filesystem as the
target (so activation is a rename), mode 0700 (``mkdtemp``), and hidden, so the catalog never
lists it. The source fetches into its empty ``tree`` subfolder; the ``owner`` file beside it
records the installing process (pid, host, and the process's start time where the system
tells it, so a reused pid is not taken for the owner). :func:`remove_tree` removes a staging
or backup folder without following any link inside it.

An install killed with ``kill -9`` cannot remove its staging folder: :func:`sweep_stale`, run
by the next install into the same skills folder, removes those whose owner is gone (same
host, process not running or a different process under that pid), and those with no readable
owner or another host's owner once they are :data:`STALE_AGE` old. A live install's staging
folder is never touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from pathlib import Path

from lemon_core.fsio.write import make_parent
from lemon_core.install.owner import Owner, hostname, owner_gone, this_process

TREE = "tree"
OWNER = "owner"
MARK = ".staging-"
#: Seconds after which a staging folder whose owner cannot be checked (no owner file, or
#: another host's) is taken for abandoned: a day, far beyond any install.
STALE_AGE = 24 * 3600.0


def make_staging(skills_dir: Path, name: str, root: Path | None = None) -> Path:
    """A fresh staging folder (0700) holding an empty ``tree`` folder and the ``owner``
    record of this process; returns the folder. ``root``: a project's root, beneath which the
    skills folder is made without following a link."""
    if root is not None:
        from lemon_core.fsio import beneath

        beneath.make_dirs(root, skills_dir)
    make_parent(skills_dir / name)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}{MARK}", dir=skills_dir))
    me = this_process()
    record = f"{me.pid}\n{me.host}\n{'' if me.started is None else me.started}\n".encode()
    fd = os.open(staging / OWNER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:  # one write: a reader sees the whole record or an empty file
        os.write(fd, record)
    finally:
        os.close(fd)
    os.mkdir(staging / TREE, 0o700)
    return staging


def read_owner(staging: Path) -> Owner | None:
    """The owner recorded in ``staging``, or None when there is none or it is unreadable."""
    from lemon_core.fsio.read import FileProblem, read_bytes

    try:
        data = read_bytes(staging / OWNER, 4096)
        if not data:
            return None
        pid, host, started, *_ = data.decode("utf-8").split("\n")
        return Owner(int(pid), host, int(started) if started else None)
    except (FileProblem, OSError, UnicodeDecodeError, ValueError):
        return None


def is_stale(staging: Path, *, now: float | None = None) -> Owner | bool:
    """Whether the staging folder ``staging`` was left by an install that is gone: its owner
    (returned, when known) on this host no longer runs, or it has no readable owner or another
    host's owner and is :data:`STALE_AGE` old. False for a live install's folder."""
    owner = read_owner(staging)
    if owner is not None and owner.host == hostname():
        return owner if owner_gone(owner) else False
    try:
        age = (time.time() if now is None else now) - os.lstat(staging).st_mtime
    except OSError:
        return False
    if age < STALE_AGE:
        return False
    return owner if owner is not None else True


def sweep_stale(skills_dir: Path) -> list[str]:
    """Remove the staging folders of interrupted installs from ``skills_dir`` (see the
    module); returns one note for each folder removed."""
    try:
        names = sorted(n for n in os.listdir(skills_dir) if n.startswith(".") and MARK in n)
    except OSError:
        return []
    notes = []
    for name in names:
        folder = skills_dir / name
        if not stat_is_dir(folder):
            continue
        stale = is_stale(folder)
        if stale is False:
            continue
        with contextlib.suppress(OSError):
            remove_tree(folder)
        if os.path.lexists(folder):
            continue
        who = (f" (process {stale.pid} on {stale.host})" if isinstance(stale, Owner)
               else " (no owner recorded)")
        notes.append(f"removed {folder}, the staging folder of an interrupted install{who}")
    return notes


def stat_is_dir(path: Path) -> bool:
    """A real folder (a link to one is not)."""
    import stat

    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def missing_folders(path: Path) -> list[Path]:
    """``path`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not os.path.lexists(path) and path.parent != path:
        missing.append(path)
        path = path.parent
    return missing


def remove_empty(folders: list[Path]) -> None:
    """Remove the ``folders`` (deepest first) that are empty; stop at the first that is not."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            return


def fsync_dir(directory: Path) -> None:
    """Make the renames inside ``directory`` durable (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_tree(path: Path) -> None:
    """Remove ``path`` (a folder, a file or a link) if it exists; links are never followed."""
    with contextlib.suppress(FileNotFoundError):
        if path.is_symlink() or not path.is_dir():
            path.unlink()
            return
        shutil.rmtree(path, onerror=_make_writable)


def _make_writable(func, failed, exc_info) -> None:
    """A fetched folder may be read-only (mode 0500): allow its owner to empty it, retry."""
    parent = os.path.dirname(failed)
    with contextlib.suppress(OSError):
        os.chmod(parent, 0o700)
        if os.path.isdir(failed) and not os.path.islink(failed):
            os.chmod(failed, 0o700)
    func(failed)


__all__ = ["OWNER", "STALE_AGE", "TREE", "Owner", "is_stale", "make_staging", "owner_gone",
           "fsync_dir", "read_owner", "remove_tree", "sweep_stale", "this_process"]
