"""Safe file I/O: atomic writes, sibling lock directories, compare-before-write updates.

Every file lemon writes goes through :func:`atomic_write_bytes` (a private 0600 temporary file in
the same directory, fsync, rename), so a reader never sees a partial file and a writer killed at
any point leaves either the old file or the new one. Files that several processes may edit are
changed through :func:`update_file`, which holds a sibling ``<name>.lock`` directory and refuses
to overwrite a file that changed since the caller read it.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import BusyError

LOCK_SUFFIX = ".lock"


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every platform can open a directory
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` atomically; the parent directory is created if needed."""
    import tempfile  # deferred: reading commands never pay for it

    path.parent.mkdir(parents=True, exist_ok=True)
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


def atomic_write_json(path: Path, data: Any, *, mode: int = 0o600) -> None:
    atomic_write_bytes(path, dump_json(data), mode=mode)


@attrs.frozen
class Snapshot:
    """What a file held when it was read: enough to notice a concurrent change."""

    path: Path
    content: bytes | None  # None: the file did not exist

    @classmethod
    def read(cls, path: Path) -> Snapshot:
        try:
            return cls(path, path.read_bytes())
        except FileNotFoundError:
            return cls(path, None)

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


def _lock_owner(lock_dir: Path) -> tuple[int, str] | None:
    try:
        pid_text, host = (lock_dir / "owner").read_text("utf-8").split("\n")[:2]
        return int(pid_text), host
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def file_lock(path: Path, *, timeout: float = 10.0) -> Iterator[None]:
    """Hold the sibling lock directory of ``path`` (``<name>.lock``) for the block.

    Waits up to ``timeout`` seconds for another holder, then raises :class:`BusyError`; a lock
    left by a process of this host that no longer runs is reported at once as stale, with how
    to clear it (it is never removed automatically: the user decides).
    """
    lock_dir = lock_path(path)
    lock_dir.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            lock_dir.mkdir()
            break
        except FileExistsError:
            if _is_stale(lock_dir) or time.monotonic() >= deadline:
                raise _busy(path, lock_dir) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
    try:
        (lock_dir / "owner").write_text(f"{os.getpid()}\n{socket.gethostname()}\n", "utf-8")
        yield
    finally:
        with contextlib.suppress(OSError):
            (lock_dir / "owner").unlink()
        with contextlib.suppress(OSError):
            lock_dir.rmdir()


#: A lock directory that records no owner this long after it was last changed was left by a
#: writer killed between creating it and recording itself (a live holder records itself at once).
ORPHAN_LOCK_AGE = 5.0


def _lock_age(lock_dir: Path) -> float | None:
    try:
        return max(0.0, time.time() - lock_dir.stat().st_mtime)
    except OSError:
        return None


def _is_stale(lock_dir: Path) -> bool:
    """True when the lock's recorded owner is a process of this host that no longer runs, or
    when the lock records no owner and has not changed for :data:`ORPHAN_LOCK_AGE` seconds."""
    owner = _lock_owner(lock_dir)
    if owner is None:
        age = _lock_age(lock_dir)
        return age is not None and age >= ORPHAN_LOCK_AGE
    return owner[1] == socket.gethostname() and not _pid_alive(owner[0])


def _busy(path: Path, lock_dir: Path) -> BusyError:
    owner = _lock_owner(lock_dir)
    if _is_stale(lock_dir):
        who = f"from process {owner[0]}, which is no longer running" if owner else (
            "that records no owner (its writer was killed while taking it)")
        return BusyError(
            f"{path} is locked by a stale lock {who}; if no lemon command is writing, remove "
            f"the directory {lock_dir}"
        )
    holder = f" by process {owner[0]}" if owner else ""
    return BusyError(
        f"{path} is busy: another lemon command holds {lock_dir}{holder}; try again when it "
        f"finishes (remove that directory only if no lemon command is writing)"
    )


def update_file(
    path: Path,
    transform: Callable[[Snapshot], bytes],
    *,
    expected: Snapshot | None = None,
    timeout: float = 10.0,
) -> bytes:
    """Rewrite ``path`` under its lock with ``transform(current snapshot)``; returns the bytes.

    With ``expected`` (a snapshot the caller read and reasoned about), the write is refused with
    :class:`BusyError` when the file changed in the meantime. ``transform`` may raise to abort;
    nothing is written then. The file is read once more just before the rename, so an editor
    that ignores the lock and saves while ``transform`` runs is noticed too. When ``transform``
    returns the bytes the file already holds, nothing is written.
    """
    with file_lock(path, timeout=timeout):
        current = Snapshot.read(path)
        if expected is not None and current.content != expected.content:
            raise _changed(path)
        data = transform(current)
        if data == current.content:
            return data
        if Snapshot.read(path).content != current.content:
            raise _changed(path)
        atomic_write_bytes(path, data)
        return data


def _changed(path: Path) -> BusyError:
    return BusyError(
        f"{path} changed while lemon was editing it; nothing was written, run the command again"
    )


__all__ = [
    "Snapshot",
    "atomic_write_bytes",
    "atomic_write_json",
    "dump_json",
    "file_lock",
    "lock_path",
    "update_file",
]
