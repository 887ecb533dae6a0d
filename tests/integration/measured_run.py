"""Run one ``lemon`` subprocess and measure it: exit code, output, wall time, peak RSS.

Standard library only (``benchmarks/hostile.py`` measures any lemon checkout with it).

The peak RSS is lemon's own. A forked child starts with a copy of its parent's memory, and
Linux keeps that peak across ``exec`` (``ru_maxrss``), so a child forked straight from pytest
or from a benchmark that has read large outputs would report the parent's size. lemon is
therefore started by a small launcher (a fresh interpreter, about 10 MB) that forks it, waits
for it with ``wait4`` and reports its exit status, wall time and peak on a private pipe.
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


def lemon_command(spec: str | None) -> tuple[list[str], dict[str, str]]:
    """The argv that runs lemon, and the environment it needs: ``spec`` None is the lemon next
    to this interpreter, a folder is a lemon checkout (run through ``PYTHONPATH``), anything
    else a ``lemon`` script. How the benchmarks' ``--lemon`` measures another checkout."""
    if spec is None:
        return default_lemon(), {}
    path = Path(spec).resolve()
    if path.is_dir():
        return [sys.executable, "-c", "from lemon_core.cli import console; console()"], {
            "PYTHONPATH": str(path)}
    return [str(path)], {}


MAX_CAPTURE = 32 * 1024 * 1024
#: argv: report fd, address-space cap (0: none), then lemon's argv.
_LAUNCHER = """
import os, resource, sys, time
fd, cap, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.close(fd)
    try:
        if cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
os.write(fd, b"%d\\n" % pid)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
code = os.waitstatus_to_exitcode(status)
os.write(fd, f"{code} {wall!r} {usage.ru_maxrss}".encode())
os._exit(code if code >= 0 else 128 - code)
"""


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
    wall time and lemon's own peak RSS (through the launcher). Past ``timeout`` lemon is killed
    (its peak so far still reported), then its process group. ``memory_cap`` (bytes) limits
    lemon's address space."""
    report_r, report_w = os.pipe()
    argv = [sys.executable, "-S", "-c", _LAUNCHER, str(report_w), str(memory_cap or 0),
            *lemon, *args]
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True, pass_fds=(report_w,),
        )
    finally:
        os.close(report_w)
    out, err, report = bytearray(), bytearray(), bytearray()
    readers = [threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True),
               threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True),
               threading.Thread(target=_drain, args=(os.fdopen(report_r, "rb", 0), report),
                                daemon=True)]
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
            _kill_lemon(report, proc.pid)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.005)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
    try:  # a grandchild may still hold the pipes: it is in the same (killed) group
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for reader in readers:
        reader.join(5)
    for stream in (proc.stdout, proc.stderr):
        stream.close()  # type: ignore[union-attr]
    code: int | None = proc.returncode
    peak_kb = usage.ru_maxrss  # the launcher's own figure, if it could not report lemon's
    try:
        _pid, text_code, text_wall, text_peak = report.decode().split()
        code, peak_kb = int(text_code), int(text_peak)
        if not timed_out:
            wall = float(text_wall)
    except ValueError:  # the launcher itself failed, or was killed
        pass
    if timed_out:
        code = None
    return Run(
        args=list(args), code=code,
        stdout=out.decode("utf-8", "surrogateescape"),
        stderr=err.decode("utf-8", "surrogateescape"),
        wall=wall, peak_rss_mb=peak_kb / 1024, timed_out=timed_out,
    )


def _kill_lemon(report: bytearray, launcher: int) -> None:
    """Kill lemon itself so the launcher still reports its peak; then, after a grace second,
    the whole process group."""
    try:
        os.kill(int(bytes(report).split(b"\n", 1)[0]), signal.SIGKILL)
        for _ in range(200):
            if b" " in report:  # the final line: the launcher reaped lemon and is leaving
                return
            time.sleep(0.005)
    except (ValueError, ProcessLookupError):
        pass
    try:  # the launcher and lemon share the launcher's new process group
        os.killpg(launcher, signal.SIGKILL)
    except ProcessLookupError:
        pass


def tree_entries(root: Path) -> set[str]:
    """Every path below ``root`` (links not followed): to notice a command that wrote."""
    entries = set()
    for parent, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            entries.add(os.path.relpath(os.path.join(parent, name), root))
    return entries


__all__ = ["Run", "default_lemon", "lemon_command", "run", "tree_entries"]
