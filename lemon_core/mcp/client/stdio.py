"""lemon's stdio transport for the SDK client: a server subprocess, JSON lines, bounded memory.

It behaves like the SDK's ``mcp.client.stdio.stdio_client`` (the command and its argument
vector, never a shell; the entry's ``env`` over the SDK's safe inherited environment; the
working directory; the server's stderr to ``errlog``; the server in a process group of its own,
so shutdown reaches its children) with one difference: memory is bounded. stdout is read in
chunks of :data:`CHUNK_BYTES` and split into lines; a line, or the unfinished rest of one, longer
than :data:`MAX_MESSAGE_BYTES` (8 MiB) ends the connection with the fixed error kind
``oversized`` instead of growing a buffer. Each line is parsed by the SDK's own JSON-RPC
validation; a malformed line reaches the session as an exception on the stream (as with the
SDK), and blank lines are skipped; notifications beyond a rate limit are dropped before they
are parsed (:mod:`lemon_core.mcp.client.flood`). Outgoing messages are written as JSON lines.

Shutdown (leaving the ``async with``, always, even when cancelled): stdin is closed and the
server gets :data:`GRACE_S` to exit; then its process group gets SIGTERM and, after
:data:`KILL_AFTER_S`, SIGKILL (on Windows its job is terminated). A server that exited by
itself (while idle, or within the grace) may have left children in its group: they get the same
SIGTERM, then SIGKILL, so nothing a server started outlives its connection.

:meth:`StdioTransport.wait_closed` returns when the server is gone while the session is open
(its stdout ended, or its process exited even though a child still holds stdout): it waits on
the stream and on the process (a pidfd on Linux, else the process's own wait), never polls.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.flood import NotificationBucket
from lemon_core.mcp.lines import (
    CHUNK_BYTES,
    MAX_MESSAGE_BYTES,
    LineSplitter,
    Oversized,
    line_parser,
)

logger = logging.getLogger(__name__)

#: How long a server may take to exit by itself once its stdin is closed.
GRACE_S = 2.0
#: How long between SIGTERM to the server's process group and SIGKILL.
KILL_AFTER_S = 2.0
#: How long to wait for the event loop to see a killed server's exit.
REAP_S = 2.0
_POLL_S = 0.01


class StdioTransport:
    """An SDK ``Transport`` (an async context manager of the session's two streams) that runs
    ``command`` with ``args``. ``splitter`` shows how much of stdout it held; ``pid`` is the
    server's process id once started; ``error`` the :class:`McpConnectionError` that ended it."""

    def __init__(self, command: str, args: Sequence[str] = (), *,
                 env: dict[str, str] | None = None, cwd: str | None = None,
                 errlog: TextIO | None = None, name: str | None = None,
                 limit: int = MAX_MESSAGE_BYTES, grace_s: float = GRACE_S,
                 kill_after_s: float = KILL_AFTER_S,
                 notification_rate: float | None = None) -> None:
        self.command = command
        self.args = list(args)
        self.env = env
        self.cwd = cwd
        self.errlog = errlog if errlog is not None else sys.stderr
        self.name = name
        self.grace_s = grace_s
        self.kill_after_s = kill_after_s
        self.splitter = LineSplitter(limit)
        #: the notification rate limit (:mod:`lemon_core.mcp.client.flood`); its ``dropped``
        #: counts what it held back
        #: (``notification_rate``: its rate; ``float("inf")`` turns it off)
        self.bucket = NotificationBucket(name, rate=notification_rate)
        self.pid: int | None = None
        self.error: McpConnectionError | None = None
        self._cm: Any = None
        self._process: Any = None
        self._ended: Any = None  # an anyio.Event, set once stdout ended (or was cut off)
        self._pidfd: int | None = None  # the server process's pidfd (Linux), while open

    async def __aenter__(self) -> Any:
        self._cm = self._open()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc: object) -> Any:
        return await self._cm.__aexit__(*exc)

    async def why_ended(self, phase: str, wait_s: float = 1.0) -> McpConnectionError | None:
        """Why the stream a request was waiting on ended, for the request's message: the
        message over the limit (``oversized``), or the server's exit with its status
        (``exited``); None while the server still runs with stdout open, or when neither is
        known within ``wait_s`` (the caller then says "closed")."""
        import anyio

        if self._ended is None:
            return None
        with anyio.move_on_after(wait_s):
            await self._ended.wait()
        if self.error is not None:
            return self.error.during(phase)
        process = self._process
        if process is None or not self._ended.is_set() and not _gone(self._pidfd):
            return None
        await _exited(process, wait_s)  # stdout ends a moment before the exit is seen
        if process.returncode is None:
            return None
        return McpConnectionError(self.name, "stdio", "exited", phase=phase,
                                  exit_status=process.returncode)

    async def wait_closed(self) -> None:
        """Return once the server is gone: its stdout ended (or was cut off), or its process
        exited (seen through a pidfd on Linux, so a child holding stdout open does not hide
        the exit). Nothing polls: both waits sleep until the kernel reports the event."""
        import anyio

        ended, process, pidfd = self._ended, self._process, self._pidfd
        if ended is None or process is None:
            return
        async with anyio.create_task_group() as tg:
            if pidfd is not None:
                async def exit_seen() -> None:
                    with suppress(OSError, anyio.ClosedResourceError):
                        await anyio.wait_readable(pidfd)
                        tg.cancel_scope.cancel()

                tg.start_soon(exit_seen)
            await ended.wait()
            tg.cancel_scope.cancel()

    @asynccontextmanager
    async def _open(self) -> AsyncIterator[Any]:
        import anyio

        process = await _spawn(self.command, self.args, self.env, self.cwd, self.errlog)
        self.pid = process.pid
        self._process = process
        self._pidfd = _open_pidfd(process.pid)
        ended = self._ended = anyio.Event()
        # no await between the spawn and the task group, or a cancellation would leak it
        to_session, read_stream = anyio.create_memory_object_stream[Any](0)
        write_stream, from_session = anyio.create_memory_object_stream[Any](0)
        writer_done = anyio.Event()
        parse_line = line_parser()

        async def read(scope: Any) -> None:
            try:
                async with to_session:
                    while True:
                        try:
                            chunk = await process.stdout.receive(CHUNK_BYTES)
                        except (anyio.EndOfStream, anyio.ClosedResourceError,
                                anyio.BrokenResourceError, OSError):
                            return
                        for line in self.splitter.feed(chunk):
                            if line and not line.isspace() and self.bucket.admit(line):
                                await to_session.send(parse_line(line))
            except Oversized:
                self.error = McpConnectionError(self.name, "stdio", "oversized",
                                                phase="session")
                ended.set()
                scope.cancel()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass  # the session is gone
            finally:
                ended.set()
                await _drain(process)

        async def write() -> None:
            try:
                async with from_session:
                    async for message in from_session:
                        data = message.message.model_dump_json(by_alias=True,
                                                               exclude_unset=True)
                        await process.stdin.send(data.encode() + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await to_session.aclose()  # the session sees the end, not a hang
            finally:
                writer_done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(read, tg.cancel_scope)
            tg.start_soon(write)
            try:
                yield read_stream, write_stream
            finally:
                with anyio.CancelScope(shield=True):
                    read_stream.close()
                    write_stream.close()
                    with anyio.move_on_after(0.5):
                        await writer_done.wait()
                    await self._stop(process)
                    for stream in (read_stream, write_stream, to_session, from_session):
                        await stream.aclose()
                    self._close_pidfd()
                tg.cancel_scope.cancel()
        if self.error is not None:
            raise self.error

    def _close_pidfd(self) -> None:
        import anyio

        pidfd, self._pidfd = self._pidfd, None
        if pidfd is not None:
            anyio.notify_closing(pidfd)  # a waiter on it wakes with ClosedResourceError
            os.close(pidfd)

    async def _stop(self, process: Any) -> None:
        import anyio

        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
        if not await _exited(process, self.grace_s):
            await _kill_tree(process, self.kill_after_s)
            if not await _exited(process, REAP_S):
                logger.warning("MCP server process %d survived the kill", process.pid)
        elif sys.platform != "win32":  # it exited by itself: what it started may live on
            await _end_survivors(process.pid, self.kill_after_s)
        if sys.platform == "win32":  # pragma: no cover
            from mcp.os.win32.utilities import close_process_job

            close_process_job(process)
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()
        # the asyncio subprocess transport stays open while a survivor holds a pipe end
        close = getattr(getattr(getattr(process, "_process", None), "_transport", None),
                        "close", None)
        if callable(close):
            with suppress(PermissionError):
                close()


async def _spawn(command: str, args: list[str], env: dict[str, str] | None, cwd: str | None,
                 errlog: TextIO) -> Any:
    """The server in a process group (POSIX) or job (Windows) of its own, with the SDK's
    inherited environment under ``env``."""
    import anyio
    from mcp.client.stdio import get_default_environment

    environment = get_default_environment() | (env or {})
    if sys.platform == "win32":  # pragma: no cover
        from mcp.os.win32.utilities import (
            create_windows_process,
            get_windows_executable_command,
        )

        command = await anyio.to_thread.run_sync(get_windows_executable_command, command)
        return await create_windows_process(command, args, environment, errlog, cwd)
    return await anyio.open_process([command, *args], env=environment, stderr=errlog, cwd=cwd,
                                    start_new_session=True)


def _open_pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when process ``pid`` exits (Linux 5.3+), or None
    (another system, or the process is already gone and reaped)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        return int(pidfd_open(pid))
    except OSError:
        return None


def _gone(pidfd: int | None) -> bool:
    """Whether the process behind ``pidfd`` has exited (a poll of the descriptor, no wait)."""
    if pidfd is None:
        return False
    import select

    try:
        return bool(select.select([pidfd], [], [], 0)[0])
    except (OSError, ValueError):
        return False


async def _exited(process: Any, timeout: float) -> bool:
    """Whether the process exited within ``timeout`` (polling ``returncode``: ``wait()`` also
    waits for the pipes, which a surviving child may hold open)."""
    import anyio

    deadline = anyio.current_time() + timeout
    while process.returncode is None:
        if anyio.current_time() >= deadline:
            return False
        await anyio.sleep(_POLL_S)
    return True


async def _kill_tree(process: Any, kill_after_s: float) -> None:
    if sys.platform == "win32":  # pragma: no cover
        from mcp.os.win32.utilities import terminate_windows_process_tree

        await terminate_windows_process_tree(process)
        return
    from mcp.os.posix.utilities import terminate_posix_process_tree

    await terminate_posix_process_tree(process, kill_after_s)


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group ``pgid`` still runs (on Linux, a zombie waiting for its
    new parent to reap it does not count)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode() and fields[0] != b"Z":
            return True
    return False


async def _end_survivors(pgid: int, kill_after_s: float) -> None:
    """End what is left of the process group ``pgid`` (the group of a server that exited by
    itself: a child it started and did not end), SIGTERM and, after ``kill_after_s``, SIGKILL.
    The group's id stays taken while any member lives, so the signal reaches only them."""
    import signal

    import anyio

    if not _group_alive(pgid):
        return
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = anyio.current_time() + kill_after_s
    while _group_alive(pgid):
        if anyio.current_time() >= deadline:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
            return
        await anyio.sleep(_POLL_S)


async def _drain(process: Any) -> None:
    """Read and discard what the server still writes, so a server flushing output is not
    stuck on a full pipe and can exit; ends when shutdown closes the pipe."""
    import anyio

    with anyio.CancelScope(shield=True), suppress(anyio.EndOfStream, anyio.ClosedResourceError,
                                                  anyio.BrokenResourceError, OSError):
        while True:
            await process.stdout.receive(CHUNK_BYTES)


__all__ = ["CHUNK_BYTES", "GRACE_S", "KILL_AFTER_S", "MAX_MESSAGE_BYTES", "LineSplitter",
           "StdioTransport", "line_parser"]
