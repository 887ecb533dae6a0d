"""``lazy-skills-mcp``'s first scan, made in a forked child while the parent imports the SDK.

Importing the ``mcp`` SDK takes about a second of CPU and so does scanning 10,000 skills; one
after the other they would put the server's first answer past 1.5 s. The GIL keeps a thread
from helping, so on systems with ``fork`` the scan runs in a child process that sends the
finished :class:`~.lazy_catalog.LazyScan` back through a pipe (pickled: the child is this very
program, a moment old). If the child fails in any way, the parent scans itself.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Sequence

from lemon_core.mcp.servers.lazy_catalog import LazyScan, scan_sources


def _read_all(fd: int) -> bytes:
    parts = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)


def scan_aside(sources: Sequence[str], skip_dirs: Sequence[str]) -> Callable[[], LazyScan]:
    """Start the scan; the returned function waits for it and returns it."""
    if not hasattr(os, "fork"):
        scan = scan_sources(sources, skip_dirs)
        return lambda: scan
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: scan, send, leave without running the parent's exit handlers
        code = 1
        try:
            os.close(read_fd)
            data = pickle.dumps(scan_sources(sources, skip_dirs), pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_fd, view):]
            code = 0
        finally:
            os._exit(code)
    os.close(write_fd)

    def wait() -> LazyScan:
        try:
            data = _read_all(read_fd)
        finally:
            os.close(read_fd)
        _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            try:
                scan = pickle.loads(data)  # our own child's output
            except Exception:  # noqa: BLE001 - fall back to scanning here
                scan = None
            if isinstance(scan, LazyScan):
                return scan
        return scan_sources(sources, skip_dirs)

    return wait


__all__ = ["scan_aside"]
