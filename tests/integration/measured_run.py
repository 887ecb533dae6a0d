"""Run one ``lemon`` subprocess and measure it: exit code, output, wall time, peak RSS.

Standard library only (``benchmarks/hostile.py`` measures any lemon checkout with it). The
peak RSS is that one child's own (``os.wait4``), not the maximum over every child so far.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    args: list[str]
    code: int | None
    stdout: str
    stderr: str
    wall: float
    peak_rss_mb: float
    timed_out: bool

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.code is not None and self.code < 0:
            return f"signal {signal.Signals(-self.code).name}"
        if "MemoryError" in self.stderr:
            return f"exit {self.code} MemoryError"
        if "Traceback" in self.stderr:
            return f"exit {self.code} traceback"
        return f"exit {self.code}"


def default_lemon() -> list[str]:
    """The ``lemon`` console script next to this interpreter (else the same entry point)."""
    script = Path(sys.executable).with_name("lemon")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from lemon_core.cli import console; console()"]


MAX_CAPTURE = 32 * 1024 * 1024
_LIMITED = ("import os, resource, sys; cap = int(sys.argv[1]); "
            "resource.setrlimit(resource.RLIMIT_AS, (cap, cap)); os.execv(sys.argv[2], sys.argv[2:])")


def _drain(stream: object, sink: bytearray) -> None:
    read = stream.read  # type: ignore[attr-defined]
    while True:
        chunk = read(65536)
        if not chunk:
            return
        if len(sink) < MAX_CAPTURE:
            sink.extend(chunk[: MAX_CAPTURE - len(sink)])


def run(lemon: Sequence[str], args: Sequence[str], cwd: Path, env: Mapping[str, str], *,
        timeout: float = 20, memory_cap: int | None = None) -> Run:
    """Run ``lemon *args`` in ``cwd`` with exactly ``env`` and stdin closed: exit code, output,
    wall time and this child's own peak RSS (``wait4``). Past ``timeout`` the process group is
    killed. ``memory_cap`` (bytes) limits its address space."""
    argv = [*lemon, *args]
    if memory_cap:  # set in the child just before it becomes lemon (exec keeps the limit)
        argv = [sys.executable, "-c", _LIMITED, str(memory_cap), *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, start_new_session=True,
    )
    out, err = bytearray(), bytearray()
    readers = [threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True)]
    for reader in readers:
        reader.start()
    deadline = start + timeout
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code  # reaped here: Popen must not wait for it again
    try:  # a grandchild may still hold the pipes: it is in the same (killed) group
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for reader in readers:
        reader.join(5)
    for stream in (proc.stdout, proc.stderr):
        stream.close()  # type: ignore[union-attr]
    return Run(
        args=list(args), code=None if timed_out else code,
        stdout=out.decode("utf-8", "surrogateescape"),
        stderr=err.decode("utf-8", "surrogateescape"),
        wall=wall, peak_rss_mb=usage.ru_maxrss / 1024, timed_out=timed_out,
    )


def tree_entries(root: Path) -> set[str]:
    """Every path below ``root`` (links not followed): to notice a command that wrote."""
    entries = set()
    for parent, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            entries.add(os.path.relpath(os.path.join(parent, name), root))
    return entries


__all__ = ["Run", "default_lemon", "run", "tree_entries"]
