"""``lazy-skills-mcp``'s first scan, made in a forked child while the parent imports the SDK.

Importing the ``mcp`` SDK takes about a second of CPU and so does scanning 10,000 skills; one
after the other they would put the server's first answer past 1.5 s. The GIL keeps a thread
from helping, so on systems with ``fork`` the scan runs in a child process (the cached scan of
:mod:`.lazy_cache` when it is still current). The child sends two frames through a pipe,
pickled (the child is this very program, a moment old):

1. the **head**: why the server must not start (or None) and the warnings to print now, which
   is all the parent needs before it answers ``initialize``. When
   :func:`.lazy_probe.surely_servable` already knows the server can start, the head (no
   problem, no warnings yet: the backend prints them) is sent before any scan, cached or not;
2. the **body**: the whole :class:`~.lazy_catalog.LazyScan`, read by the thread that builds
   the backend, so unpickling 10,000 skills is not on the way to the first answer.

Between the two the child saves a new scan to the cache (while the parent answers
``initialize``), so the cache is written by the time the server has its scan. If the child
fails in any way, the parent scans itself.
"""

from __future__ import annotations

import os
import pickle
import struct
import threading
from collections.abc import Sequence
from typing import Any

import attrs

from lemon_core.mcp.servers.lazy_catalog import LazyScan, startup_problem

_LENGTH = struct.Struct("!Q")


@attrs.frozen
class Head:
    """What the parent needs before it answers: the startup problem and warnings to print."""

    problem: str | None
    warnings: tuple[str, ...]


def head_of(scan: LazyScan, sources: Sequence[str]) -> Head:
    return Head(startup_problem(scan, sources), scan.warnings)


def _scan(sources: Sequence[str], skip_dirs: Sequence[str], cache: bool
          ) -> tuple[LazyScan, Any]:
    if cache:
        from lemon_core.mcp.servers.lazy_cache import prepare

        return prepare(sources, skip_dirs)
    from lemon_core.mcp.servers.lazy_catalog import scan_sources

    return scan_sources(sources, skip_dirs), None


#: The child's niceness once the head is sent: the rest (scanning, saving, pickling) is not on
#: the way to the answer to ``initialize``, so on a busy machine the parent's import comes
#: first; a small step, so it still gets a fair share of an idle core.
NICE_AFTER_HEAD = 5


def _yield_cpu() -> None:
    try:
        os.nice(NICE_AFTER_HEAD)
    except (AttributeError, OSError):
        pass


def _write_frame(fd: int, value: object) -> None:
    data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    view = memoryview(_LENGTH.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _read_frame(fd: int) -> object:
    size = _read_exactly(fd, _LENGTH.size)
    data = None if size is None else _read_exactly(fd, _LENGTH.unpack(size)[0])
    return None if data is None else pickle.loads(data)  # our own child's output


class Prescan:
    """The scan made aside: :meth:`head` (blocks until the child knows whether the server can
    start), then :meth:`scan` (blocks for the whole scan; from the backend's thread)."""

    def __init__(self, sources: Sequence[str], skip_dirs: Sequence[str], *,
                 cache: bool = True) -> None:
        self.sources, self.skip_dirs, self._cache = tuple(sources), tuple(skip_dirs), cache
        self._head: Head | None = None
        self._scan: LazyScan | None = None
        self._fd: int | None = None
        self._pid: int | None = None
        if hasattr(os, "fork"):
            self._fork()

    def _fork(self) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: scan, send, leave without the parent's exit handlers
            code = 1
            try:
                os.close(read_fd)
                sent: list[Head] = []

                from lemon_core.mcp.servers.lazy_probe import surely_servable

                if surely_servable(self.sources, self.skip_dirs):
                    # the verdict before any scan (even a cached one: loading and checking
                    # 10,000 skills takes longer than the probe)
                    sent.append(Head(None, ()))
                    _write_frame(write_fd, sent[0])
                    _yield_cpu()
                scan, save = _scan(self.sources, self.skip_dirs, self._cache)
                if not sent:
                    _write_frame(write_fd, head_of(scan, self.sources))
                    _yield_cpu()
                if save is not None:  # while the parent answers initialize
                    save()
                _write_frame(write_fd, scan)
                code = 0
            finally:
                os._exit(code)
        os.close(write_fd)
        self._fd, self._pid = read_fd, pid

    def _here(self) -> LazyScan:
        """Scan in this process (no fork, or the child failed)."""
        self._close()
        scan, save = _scan(self.sources, self.skip_dirs, self._cache)
        if save is not None:
            save()
        self._scan = scan
        return scan

    def head(self) -> Head:
        if self._head is None:
            head = None
            if self._fd is not None:
                try:
                    head = _read_frame(self._fd)
                except Exception:  # noqa: BLE001 - a broken child: scan here
                    head = None
            if not isinstance(head, Head):
                head = head_of(self._here(), self.sources)
            self._head = head
        return self._head

    def scan(self) -> LazyScan:
        self.head()
        if self._scan is None:
            body = None
            if self._fd is not None:
                try:
                    body = _read_frame(self._fd)
                except Exception:  # noqa: BLE001 - a broken child: scan here
                    body = None
            self._scan = body if isinstance(body, LazyScan) else self._here()
            self._close()
        return self._scan

    def _close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:  # reaped aside: the child is on its way out
            threading.Thread(target=_reap, args=(self._pid,), daemon=True).start()
            self._pid = None


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def scan_aside(sources: Sequence[str], skip_dirs: Sequence[str], *,
               cache: bool = True) -> Prescan:
    """Start the scan (see :class:`Prescan`)."""
    return Prescan(sources, skip_dirs, cache=cache)


__all__ = ["Head", "Prescan", "head_of", "scan_aside"]
