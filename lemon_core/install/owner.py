"""Which process made a folder, and whether it still runs.

An install records itself in what it leaves on disk while it works (the ``owner`` file of its
staging folder, the name of the backup it moves an installed copy to), so the next install can
tell a folder left by a killed process from one a live install still needs. A process is
known by its pid, its host and its start time (Linux ``/proc``), so a pid the system handed to
another process later is not taken for the owner.
"""

from __future__ import annotations

import os

import attrs


@attrs.frozen
class Owner:
    """The process that made a folder; ``started`` is its start time in clock ticks since boot
    (Linux ``/proc``), or None where the system does not say."""

    pid: int
    host: str
    started: int | None = None


def hostname() -> str:
    """This machine's name (``os.uname``: no ``socket`` import on the install path)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return uname().nodename
    import socket  # pragma: no cover - Windows

    return socket.gethostname()


def started(pid: int) -> int | None:
    """The start time of process ``pid`` (``/proc/<pid>/stat`` field 22), or None."""
    from lemon_core.fsio.read import FileProblem, read_bytes

    try:
        data = read_bytes(f"/proc/{pid}/stat", 4096)
    except (FileProblem, OSError):
        return None
    if not data:
        return None
    try:  # the command name (field 2) may hold spaces and parentheses: split after the last ')'
        return int(data[data.rindex(b")") + 2:].split()[19])
    except (ValueError, IndexError):
        return None


def this_process() -> Owner:
    return Owner(os.getpid(), hostname(), started(os.getpid()))


def owner_gone(owner: Owner) -> bool:
    """Whether ``owner`` (a process of this host) no longer runs: no process has its pid, or
    the process that has it started at another time (the pid was reused)."""
    if owner.pid <= 0:
        return True
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # PermissionError: someone else's process holds the pid, so it runs
        pass
    if owner.started is None:
        return False
    now = started(owner.pid)
    return now is not None and now != owner.started


__all__ = ["Owner", "hostname", "owner_gone", "started", "this_process"]
