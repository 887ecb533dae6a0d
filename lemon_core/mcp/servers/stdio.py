"""lemon's stdio *server* transport: the SDK's ``stdio_server`` contract, on the event loop.

The SDK's ``mcp.server.stdio.stdio_server`` reads stdin and writes stdout through anyio's
worker threads (``anyio.wrap_file``): every line read, every write and every flush is a hand-off
to a thread and back, three per request and its response. Measured on ``lemon mcp serve`` (2
busy cores) those hand-offs were most of what the gateway's stdio hop added to a tool call
(``benchmarks/bench_mcp_runtime.py --serve-only``, see ``docs/mcp-serve.md``).

:func:`stdio_server` yields the same two streams (``SessionMessage | Exception`` to the
session, ``SessionMessage`` from it), so the SDK's ``Server`` runs on top unchanged, but reads
and writes the pipes without blocking on the loop itself (``anyio.wait_readable`` /
``wait_writable``). Messages are parsed and written as the SDK does (its JSON-RPC validation,
invalid UTF-8 replaced, ``model_dump_json(by_alias=True, exclude_unset=True)`` plus a newline;
a line that is not JSON-RPC reaches the session as an exception; blank lines are skipped).
Memory is bounded as in lemon's stdio client: a message may be at most
:data:`~lemon_core.mcp.lines.MAX_MESSAGE_BYTES` (8 MiB). A longer one is dropped as soon as it
passes the limit (the session gets an exception, as for a malformed line, and stderr a
warning), the rest of it is skipped, and the next line is read; the SDK's transport would
buffer it whole.

Like the SDK's, it claims the process's standard streams while serving: fd 0 then reads the
null device and fd 1 writes to stderr, so a handler or library that prints cannot corrupt the
protocol; both are restored on exit, with their blocking mode.

Where the loop cannot wait on the pipes (Windows; stdin or stdout not a pipe or socket, e.g. a
file or a terminal; stdout on the same pipe as stderr, whose writers expect blocking writes),
this is the SDK's ``stdio_server``.
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from lemon_core.mcp.lines import CHUNK_BYTES, MAX_MESSAGE_BYTES, LineSplitter, line_parser

logger = logging.getLogger(__name__)

#: How long leaving the transport waits for the session's last messages to be written.
FLUSH_S = 5.0
TOO_LONG = "a message on stdin was longer than {limit} bytes; it was dropped unread"

_claimed: set[int] = set()


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _same_file(a: int, b: int) -> bool:
    try:
        sa, sb = os.fstat(a), os.fstat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def loop_can_serve() -> bool:
    """Whether this process's stdin and stdout can be served on the event loop (see the
    module docstring); otherwise :func:`stdio_server` is the SDK's."""
    return (sys.platform != "win32" and _pollable(0) and _pollable(1)
            and not _same_file(1, 2))


class _Claim:
    """One standard descriptor taken over: the wire moves to a private, non-blocking
    duplicate (close-on-exec, above the standard range) and ``fd`` is pointed elsewhere."""

    def __init__(self, fd: int) -> None:
        import fcntl

        if fd in _claimed:
            raise RuntimeError(f"another stdio server in this process already serves fd {fd}")
        self.fd = fd
        self.private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self.was_blocking = os.get_blocking(self.private)
        try:
            diversion = os.open(os.devnull, os.O_RDONLY) if fd == 0 else os.dup(2)
            try:
                os.dup2(diversion, fd)
            finally:
                os.close(diversion)
            os.set_blocking(self.private, False)
        except OSError:
            self.release()
            raise
        _claimed.add(fd)

    def release(self) -> None:
        with suppress(OSError):
            os.set_blocking(self.private, self.was_blocking)
        with suppress(OSError):
            os.dup2(self.private, self.fd)
        with suppress(OSError):
            os.close(self.private)
        _claimed.discard(self.fd)


@asynccontextmanager
async def stdio_server(limit: int = MAX_MESSAGE_BYTES) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for ``Server.run`` on this process's stdin and
    stdout (see the module docstring)."""
    if not loop_can_serve():
        from mcp.server.stdio import stdio_server as sdk_stdio_server

        async with sdk_stdio_server() as streams:
            yield streams
        return
    stdin = _Claim(0)
    try:
        stdout = _Claim(1)
    except BaseException:
        stdin.release()
        raise
    try:
        async with _serve(stdin.private, stdout.private, limit) as streams:
            yield streams
    finally:
        stdout.release()
        stdin.release()


@asynccontextmanager
async def _serve(fd_in: int, fd_out: int, limit: int) -> AsyncIterator[tuple[Any, Any]]:
    import anyio

    to_session, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, from_session = anyio.create_memory_object_stream[Any](0)
    written = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_read, fd_in, to_session, limit)
        tg.start_soon(_write, fd_out, from_session, written, tg.cancel_scope)
        try:
            yield read_stream, write_stream
        finally:
            read_stream.close()
            write_stream.close()  # the writer ends once the last message is out
            try:
                with anyio.move_on_after(FLUSH_S):
                    await written.wait()
            finally:
                tg.cancel_scope.cancel()


async def _read(fd: int, to_session: Any, limit: int) -> None:
    """stdin's lines, parsed, to the session until end of input (or the session left)."""
    import anyio

    splitter = LineSplitter(limit, skip_oversized=True)
    parse = line_parser(replace_invalid_utf8=True)
    try:
        async with to_session:
            while True:
                try:
                    chunk = os.read(fd, CHUNK_BYTES)
                except BlockingIOError:
                    await anyio.wait_readable(fd)
                    continue
                except OSError:
                    return
                lines = splitter.feed(chunk) if chunk else [splitter.finish()]
                for line in lines:
                    if line is None:
                        logger.warning(TOO_LONG.format(limit=limit))
                        await to_session.send(ValueError(TOO_LONG.format(limit=limit)))
                    elif line and not line.isspace():
                        await to_session.send(parse(line))
                if not chunk:
                    return
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        return  # the session is gone


async def _write(fd: int, from_session: Any, written: Any, scope: Any) -> None:
    """The session's messages to stdout, one JSON line each; a client that closed its end
    ends the serving (there is no one left to answer)."""
    import anyio

    try:
        async with from_session:
            async for message in from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                view = memoryview(data.encode() + b"\n")
                while view:
                    try:
                        view = view[os.write(fd, view):]
                    except BlockingIOError:
                        await anyio.wait_writable(fd)
    except OSError:  # a broken pipe: the client left
        scope.cancel()
    finally:
        written.set()


__all__ = ["FLUSH_S", "loop_can_serve", "stdio_server"]
