"""Safe file I/O: atomic writes, sibling lock directories, compare-before-write updates.

Every file lemon writes goes through :func:`atomic_write_bytes` (a private 0600 temporary file in
the same directory, fsync, rename), so a reader never sees a partial file and a writer killed at
any point leaves either the old file or the new one. Files that several processes may edit are
changed through :func:`update_file`, which holds a sibling ``<name>.lock`` directory and refuses
to overwrite a file that changed since the caller read it.

Locks: a holder creates the lock directory and then records itself in ``owner`` (process id,
host and a random token, written atomically). A waiter judges a lock stale only when the same
token is read before and after it finds the recorded process gone, so a process id read from one
holder is never held against the next one. Stale locks are reported, never removed; a link,
file or anything else that is not a directory at the lock path is reported as what it is,
never followed, waited for or removed.

Symbolic links, and where a write may follow one:

- *Inside a project* (every file lemon writes below the working directory: ``.lemon/mcp.json``,
  ``.lemon/skills.json``, ``.lemon/skills.lock.json``, the skill folders of ``.lemon/skill``):
  callers pass ``root=<project root>`` and the write never follows a link lemon did not make.
  Each folder from the root down and the file itself are reached through
  :mod:`lemon_core.fsio.beneath` (``O_NOFOLLOW`` per component, relative to the folder's
  descriptor); a link anywhere on the way is refused with
  :class:`~lemon_core.errors.PlantedLinkError` naming it. A cloned repository could otherwise
  plant ``.lemon/mcp.json -> ~/.cursor/mcp.json`` and have lemon edit another tool's file.
- *The user's own files* (lemon's agent folder and home, ``root=None``): :func:`update_file`
  writes *through* a link, because dotfile managers link lemon's files and a project cannot
  plant links there: the temporary file is made in the target's directory and renamed over the
  target, and the lock sits next to the target, so the link is kept and the target updated.
  Only a link whose final target is an existing regular file of the same name is followed; a
  dangling link, a link to something else, or a target lemon cannot write is an
  :class:`UnwritableError` saying so. :func:`atomic_write_bytes` alone replaces whatever is at
  ``path``.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import BusyError, LemonError
from lemon_core.fsio import beneath as beneath_root
from lemon_core.fsio import read as reading

LOCK_SUFFIX = ".lock"
OWNER_FILE = "owner"


class UnwritableError(LemonError):
    """A file cannot be written where it is: a parent is a file, a link dangles or points at
    something lemon does not edit, or the file cannot be read back to compare."""


def _blocking_file(directory: Path) -> Path | None:
    """The first ancestor of ``directory`` (itself included) that exists but is not a folder."""
    for candidate in (directory, *directory.parents):
        try:
            info = candidate.stat()
        except OSError:
            continue
        return None if stat.S_ISDIR(info.st_mode) else candidate
    return None


def check_parent(path: Path) -> None:
    """Raise :class:`UnwritableError` when a file stands where a folder of ``path`` should be
    (``.lemon`` is a file): the message says so, rather than the bare "File exists"."""
    blocker = _blocking_file(path.parent)
    if blocker is not None:
        raise UnwritableError(
            f"cannot write {path}: {blocker} is a file, not a folder; move it away (or rename "
            f"it) and run the command again"
        )


def make_parent(path: Path) -> None:
    """Create ``path``'s folder (and its parents); see :func:`check_parent`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        check_parent(path)
        raise


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600,
                       root: Path | None = None) -> None:
    """Replace ``path`` with ``data`` atomically; the parent directory is created if needed.

    With ``root`` (a project), ``path`` is reached beneath it without following a link
    (:func:`lemon_core.fsio.beneath.write_bytes`): a link on the way is a
    :class:`~lemon_core.errors.PlantedLinkError`; a link at ``path`` itself is replaced.
    """
    if root is not None:
        try:
            beneath_root.write_bytes(root, path, data, mode=mode)
        except NotADirectoryError:
            check_parent(path)
            raise
        return
    import tempfile  # deferred: reading commands never pay for it

    make_parent(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(path.parent)


def dump_json(data: Any) -> bytes:
    """The one JSON layout lemon writes: two-space indent, UTF-8, trailing newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def atomic_write_json(path: Path, data: Any, *, mode: int = 0o600,
                      root: Path | None = None) -> None:
    atomic_write_bytes(path, dump_json(data), mode=mode, root=root)


@attrs.frozen
class Snapshot:
    """What a file held when it was read: enough to notice a concurrent change."""

    path: Path
    content: bytes | None  # None: the file did not exist

    @classmethod
    def read(cls, path: Path, max_bytes: int = reading.MAX_FILE_BYTES, *,
             nofollow: bool = False) -> Snapshot:
        """Through the safe reader (regular files only, bounded, never blocking); with
        ``nofollow``, a link at ``path`` is refused rather than read."""
        try:
            return cls(path, reading.read_bytes(path, max_bytes, nofollow=nofollow))
        except reading.FileProblem as problem:
            raise UnwritableError(f"cannot edit {path}: {problem.message}") from None

    @property
    def exists(self) -> bool:
        return self.content is not None


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + LOCK_SUFFIX)


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


@attrs.frozen
class LockOwner:
    """What a holder records in its lock directory; ``token`` is unique to one acquisition
    (empty in locks written by older lemon versions)."""

    pid: int
    host: str
    token: str = ""


def _lock_owner(lock_dir: Path) -> LockOwner | None:
    if _not_a_lock(lock_dir) is not None:
        return None  # never read an owner through a link or out of a file lemon did not make
    try:
        data = reading.read_bytes(lock_dir / OWNER_FILE, 4096)
        if data is None:
            return None
        pid_text, host, *rest = data.decode("utf-8").split("\n")
        return LockOwner(int(pid_text), host, rest[0] if rest else "")
    except (reading.FileProblem, UnicodeDecodeError, ValueError):
        return None


def _record_owner(lock_dir: Path, token: str) -> None:
    """Write ``owner`` in one ``write``: a waiter reads the whole record, or an empty file
    (which it takes for "no owner yet", never for a stale lock)."""
    import socket  # here: only a lock holder needs the host name

    record = f"{os.getpid()}\n{socket.gethostname()}\n{token}\n".encode()
    fd = os.open(lock_dir / OWNER_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, record)
    finally:
        os.close(fd)


def _release(lock_dir: Path, token: str, recorded: bool = True) -> None:
    """Remove the lock directory, but only while it still records this holder's token (or,
    when recording failed, records nobody)."""
    if _not_a_lock(lock_dir) is not None:
        return  # replaced by a link or a file: never delete through it
    owner = _lock_owner(lock_dir)
    if (owner.token if owner else None) != (token if recorded else None):
        return  # someone removed our lock by hand; never remove another holder's
    with contextlib.suppress(OSError):
        (lock_dir / OWNER_FILE).unlink()
    with contextlib.suppress(OSError):
        lock_dir.rmdir()


def lock_holder(path: Path) -> LockOwner | None:
    """Who holds the lock of ``path`` now, as its lock directory records it (None: unlocked,
    or a holder that has not recorded itself yet)."""
    return _lock_owner(lock_path(path))


def break_lock(path: Path, holder: LockOwner) -> bool:
    """Remove the lock of ``path`` if it still records exactly ``holder``: for a caller that has
    proven that holder gone by the work it left (an install killed mid-activation), never a
    guess from the pid alone. Returns whether the lock was removed."""
    lock_dir = lock_path(path)
    if _lock_owner(lock_dir) != holder:
        return False
    _release(lock_dir, holder.token)
    return not lock_dir.exists()


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = 10.0, root: Path | None = None) -> Iterator[None]:
    """Hold the sibling lock directory of ``path`` (``<name>.lock``) for the block. With
    ``root`` (a project), the lock's folder is reached (and made) beneath it without following
    a link (:class:`~lemon_core.errors.PlantedLinkError`).

    Waits up to ``timeout`` seconds for another holder, then raises :class:`BusyError`; a lock
    left by a process of this host that no longer runs is reported at once as stale, with how
    to clear it (it is never removed automatically: the user decides).
    """
    lock_dir = lock_path(path)
    _make_lock_parent(path, root)  # the lock's folder is the file's: a file in the way is named
    token = os.urandom(16).hex()  # secrets.token_hex(16), without importing secrets
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            lock_dir.mkdir()
            break
        except FileExistsError:
            verdict = _verdict(lock_dir)
            if verdict.stale or verdict.foreign or time.monotonic() >= deadline:
                raise _busy(path, lock_dir, verdict) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    try:
        _record_owner(lock_dir, token)
    except BaseException:
        _release(lock_dir, token, recorded=False)
        raise
    try:
        yield
    finally:
        _release(lock_dir, token)


def _make_lock_parent(path: Path, root: Path | None) -> None:
    if root is None:
        make_parent(path)
        return
    try:
        beneath_root.make_dirs(root, path.parent)
        beneath_root.check(root, lock_path(path))  # a planted link named like the lock
    except NotADirectoryError:
        check_parent(path)
        raise


#: A lock directory that records no owner this long after it was last changed was left by a
#: writer killed between creating it and recording itself (a live holder records itself at once).
ORPHAN_LOCK_AGE = 5.0


def _lock_age(lock_dir: Path) -> float | None:
    try:
        return max(0.0, time.time() - lock_dir.stat().st_mtime)
    except OSError:
        return None


@attrs.frozen
class _Verdict:
    stale: bool
    owner: LockOwner | None
    foreign: str | None = None  # what stands at the lock path when it is not a lock directory


def _not_a_lock(lock_dir: Path) -> str | None:
    """What stands at ``lock_dir`` when it is not a real directory (a symbolic link, a regular
    file, anything else), said for a person; None for a directory or nothing at all. Looked at
    with ``lstat``: a link is described, never followed."""
    try:
        info = lock_dir.lstat()
    except OSError:
        return None
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        try:
            return f"a symbolic link to {os.readlink(lock_dir)}"
        except OSError:
            return "a symbolic link"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "a special file (a FIFO, socket or device)"


def _verdict(lock_dir: Path) -> _Verdict:
    """Is the lock stale? True when it records a process of this host that no longer runs and
    the *same* record (token) is still there after that was found out, or when it records no
    owner and has not changed for :data:`ORPHAN_LOCK_AGE` seconds. Judged once per look, and
    the message is built from the same look. Something that is not a directory at the lock
    path is no lock of lemon's at all: it is reported as what it is (``foreign``), neither
    waited for, followed nor removed."""
    foreign = _not_a_lock(lock_dir)
    if foreign is not None:
        return _Verdict(False, None, foreign)
    owner = _lock_owner(lock_dir)
    if owner is None:
        age = _lock_age(lock_dir)
        orphan = age is not None and age >= ORPHAN_LOCK_AGE and _lock_owner(lock_dir) is None
        return _Verdict(orphan, None)
    import socket

    if owner.host != socket.gethostname() or _pid_alive(owner.pid):
        return _Verdict(False, owner)
    # The process is gone: but the lock may have passed to a live holder meanwhile.
    return _Verdict(_lock_owner(lock_dir) == owner, owner)


def _busy(path: Path, lock_dir: Path, verdict: _Verdict) -> BusyError:
    owner = verdict.owner
    if verdict.foreign:
        return BusyError(
            f"{path} cannot be locked: {lock_dir} is {verdict.foreign}, not a lock lemon made "
            f"(lemon's locks are directories); lemon neither follows nor removes it: remove "
            f"{lock_dir} yourself, then run the command again"
        )
    if verdict.stale:
        who = f"from process {owner.pid}, which is no longer running" if owner else (
            "that records no owner (its writer was killed while taking it)")
        return BusyError(
            f"{path} is locked by a stale lock {who}; if no lemon command is writing, remove "
            f"the directory {lock_dir}"
        )
    holder = f" by process {owner.pid}" if owner else ""
    return BusyError(
        f"{path} is busy: another lemon command holds {lock_dir}{holder}; try again when it "
        f"finishes (remove that directory only if no lemon command is writing)"
    )


def write_target(path: Path) -> Path:
    """Where an edit of ``path`` really goes: ``path`` itself, or the final target of the
    symbolic link at ``path`` when that is an existing regular file of the same name.

    :raises UnwritableError: for a dangling link, or one to anything else.
    """
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    try:
        info = target.stat()
    except OSError:
        raise UnwritableError(
            f"cannot write {path}: it is a symbolic link to {target}, which does not exist; "
            f"create that file (or remove the link) and run the command again"
        ) from None
    if not stat.S_ISREG(info.st_mode) or target.name != path.name:
        raise UnwritableError(
            f"cannot write {path}: it is a symbolic link to {target}; lemon writes through a "
            f"link only to a regular file also named {path.name}; replace the link with a copy"
        )
    return target


def update_file(
    path: Path,
    transform: Callable[[Snapshot], bytes],
    *,
    expected: Snapshot | None = None,
    timeout: float = 10.0,
    root: Path | None = None,
) -> bytes:
    """Rewrite ``path`` under its lock with ``transform(current snapshot)``; returns the bytes.

    ``root``: the project ``path`` lies in. Then no link is followed on the way to ``path`` or
    at ``path`` (a :class:`~lemon_core.errors.PlantedLinkError` names it); without it (the
    user's own files), a link at ``path`` is written through as the module docstring says.

    With ``expected`` (a snapshot the caller read and reasoned about), the write is refused with
    :class:`BusyError` when the file changed in the meantime. ``transform`` may raise to abort;
    nothing is written then. The file is read once more just before the rename, so an editor
    that ignores the lock and saves while ``transform`` runs is noticed too. When ``transform``
    returns the bytes the file already holds, nothing is written.
    """
    if root is not None:
        beneath_root.check(root, path)
        target = path
    else:
        target = write_target(path)
    nofollow = root is not None
    try:
        with file_lock(target, timeout=timeout, root=root):
            current = Snapshot.read(target, nofollow=nofollow)
            if expected is not None and current.content != expected.content:
                raise _changed(path)
            data = transform(current)
            if data == current.content:
                return data
            if Snapshot.read(target, nofollow=nofollow).content != current.content:
                raise _changed(path)
            atomic_write_bytes(target, data, root=root)
            return data
    except OSError as exc:
        if target == path:
            raise
        raise UnwritableError(
            f"cannot write {path}: it is a symbolic link to {target}, which lemon cannot write "
            f"({exc.strerror or type(exc).__name__}); edit that file where it comes from, or "
            f"replace the link with a copy"
        ) from None


def _changed(path: Path) -> BusyError:
    return BusyError(
        f"{path} changed while lemon was editing it; nothing was written, run the command again"
    )


__all__ = [
    "LockOwner",
    "Snapshot",
    "UnwritableError",
    "atomic_write_bytes",
    "check_parent",
    "atomic_write_json",
    "dump_json",
    "break_lock",
    "file_lock",
    "lock_holder",
    "lock_path",
    "make_parent",
    "update_file",
    "write_target",
]
