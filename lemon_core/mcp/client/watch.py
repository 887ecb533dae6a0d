"""Knowing when a connection is gone while nobody asks it anything.

An SDK session only finds out that its server went away when a request fails. The tool host
wants to know at once (a server that exits while idle should be restarted, not discovered
dead by the next call), so :func:`watched` wraps any transport: the stream the session reads
is wrapped to set an event when it ends (end of stream, or closed under the reader), which is
how every transport reports that its server is gone (a stdio server's stdout ended, a legacy
SSE event stream ended, a Streamable HTTP transport stopped). :meth:`Watched.wait_closed`
waits for that event and, for a stdio server, for its process to exit as well
(:meth:`lemon_core.mcp.client.stdio.StdioTransport.wait_closed`). Waiting costs nothing: no
task wakes until the event happens.

The read stream is also where the notification rate limit
(:class:`~lemon_core.mcp.client.flood.NotificationBucket`) sees what the HTTP transports parsed:
a transport with a bucket of its own (stdio, which limits lines before parsing them) keeps it;
the others get one here, asked about each message before the session validates and
dispatches it. :attr:`Watched.bucket` is the one in force either way.
"""

from __future__ import annotations

from typing import Any


class _Reading:
    """The session's read stream, reporting its end to ``ended``; everything else is the
    wrapped stream's."""

    def __init__(self, stream: Any, ended: Any, bucket: Any = None) -> None:
        self._stream = stream
        self._ended = ended
        self._bucket = bucket

    def __getattr__(self, name: str) -> Any:  # last_context, close, statistics, ...
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        import anyio

        try:
            while True:
                message = await self._stream.receive()
                if self._bucket is None or self._bucket.admit_message(message):
                    return message
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended.set()
            raise

    def __aiter__(self) -> _Reading:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _Reading:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stream.aclose()

    async def aclose(self) -> None:
        await self._stream.aclose()


class Watched:
    """A transport (an async context manager of the session's two streams) whose end can be
    awaited with :meth:`wait_closed`; other attributes (``why_ended``, ``pid``) are the
    wrapped transport's. ``name``: the server's, for the rate limit's warning."""

    def __init__(self, transport: Any, name: str | None = None) -> None:
        from lemon_core.mcp.client.flood import NotificationBucket

        self.transport = transport
        self._ended: Any = None
        own = getattr(transport, "bucket", None)
        #: the notification rate limit in force: the transport's own, or one applied here
        self.bucket: Any = own if own is not None else NotificationBucket(name)
        self._filter = None if own is not None else self.bucket

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)

    async def __aenter__(self) -> Any:
        import anyio

        self._ended = anyio.Event()
        read, write = await self.transport.__aenter__()
        return _Reading(read, self._ended, self._filter), write

    async def __aexit__(self, *exc: object) -> Any:
        return await self.transport.__aexit__(*exc)

    async def wait_closed(self) -> None:
        """Return once the server is gone (see the module docstring)."""
        import anyio

        if self._ended is None:
            return
        own = getattr(self.transport, "wait_closed", None)
        if own is None:
            await self._ended.wait()
            return
        async with anyio.create_task_group() as tg:
            async def stream_ended() -> None:
                await self._ended.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(stream_ended)
            await own()
            tg.cancel_scope.cancel()


__all__ = ["Watched"]
