"""One live connection of the tool host: a task holding an SDK client open until it is told
to stop or the server goes away. The handshake is bounded by the entry's ready timeout plus
its request timeout; the session itself is not.

While it is open the connection is watched (:mod:`lemon_core.mcp.client.watch`): a server that
exits or hangs up while no request is running ends it at once, with the reason (``exited``
and the exit status, or ``closed``) in :attr:`Connection.error`, so the host starts its
reconnect ladder then rather than at the next call. For a stdio server the watch waits on the
transport and the process; it never polls. An HTTP server (Streamable HTTP, SSE) can vanish
without ending any stream the client holds (the SDK's event stream gives up quietly), so those
connections are also pinged every ``heartbeat_s`` seconds (:data:`HEARTBEAT_S` by default): a
ping that fails or goes unanswered within the entry's request timeout ends the connection the
same way.

A ``list_changed`` notification that the rate limit dropped
(:mod:`lemon_core.mcp.client.flood`) is reported like one that arrived: the host coalesces
refreshes, so a flood costs at most a refresh every
:data:`~lemon_core.mcp.runtime.changes.MIN_GAP_S` and the last change is never missed."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TextIO

from lemon_core.context import LemonContext
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.models import McpServer

#: Seconds between pings of an idle HTTP/SSE server (one small request each).
HEARTBEAT_S = 30.0

#: The SDK's notification types that mean "list again".
LIST_CHANGED = frozenset({"ToolListChangedNotification", "ResourceListChangedNotification",
                          "PromptListChangedNotification"})


class Connection:
    """``client`` is the initialized SDK client while connected; ``error`` the last failure
    (a fixed-kind :class:`McpConnectionError`); ``retired`` once the server left the set."""

    def __init__(self, server: McpServer, identity: str, ctx: LemonContext,
                 errlog: TextIO | None = None,
                 on_change: Callable[[Connection], None] | None = None,
                 sampling: Any = None, heartbeat_s: float | None = HEARTBEAT_S) -> None:
        import anyio

        self.server = server
        self.identity = identity
        self.ctx = ctx
        self.errlog = errlog
        self.on_change = on_change
        #: the SDK sampling callback (:mod:`lemon_core.mcp.runtime.sampling`), or None: off
        self.sampling = sampling
        #: seconds between pings of an HTTP/SSE server (None: no pings)
        self.heartbeat_s = heartbeat_s
        self.client: Any = None
        self.transport: Any = None
        self._why: McpConnectionError | None = None
        self.error: McpConnectionError | None = None
        self.retired = False
        #: True once the watch saw the server go away while the connection was open
        self.gone = False
        self.ready = anyio.Event()
        self.stop = anyio.Event()
        self.done = anyio.Event()

    @property
    def connected(self) -> bool:
        return self.client is not None and not self.done.is_set()

    def lost(self, error: McpConnectionError) -> None:
        """A request found the connection gone: remember why (what :meth:`why_closed` found
        out, when it did) and end the connection: the host's supervisor then runs the
        reconnect ladder."""
        self.error = self._why or error
        self.client = None
        self.stop.set()

    def _keep_transport(self, transport: Any) -> None:
        self.transport = transport
        self._why = None
        bucket = getattr(transport, "bucket", None)
        if bucket is not None:
            bucket.on_missed_change = self._changed

    def _changed(self) -> None:
        if not self.retired and self.on_change is not None:
            self.on_change(self)

    async def why_closed(self, phase: str = "call") -> McpConnectionError | None:
        """Why the connection went away under a request, when the transport knows (a stdio
        message over the limit, the server's exit and its status); None otherwise."""
        why_ended = getattr(self.transport, "why_ended", None)
        if why_ended is not None:
            self._why = await why_ended(phase)
        return self._why

    async def _on_message(self, message: Any) -> None:
        """A ``tools``/``resources``/``prompts`` ``list_changed`` notification asks the host
        to refresh this server (scheduled, never awaited here: the SDK calls this inline).
        Notifications of a retired connection are ignored."""
        if type(message).__name__ in LIST_CHANGED:
            self._changed()

    def _gone_idle(self, why: McpConnectionError | None) -> None:
        """The server went away while the connection was open: say why, and stop."""
        from lemon_core.mcp.client.errors import IDLE

        self.gone = True
        self.client = None
        if self.error is None:  # a failed request may have said it already
            self.error = why or McpConnectionError(self.server.name, self.server.transport,
                                                   "closed", phase=IDLE)
        self.stop.set()

    async def _heartbeat(self) -> None:
        """Ping the server every :attr:`heartbeat_s` seconds; the first ping that fails or
        is not answered within the request timeout ends the connection."""
        import anyio

        from lemon_core.mcp.client.connection import classify
        from lemon_core.mcp.client.errors import IDLE
        from lemon_core.mcp.client.transports import request_timeout

        assert self.heartbeat_s is not None
        _quiet_ping_deprecation()
        while True:
            await anyio.sleep(self.heartbeat_s)
            client = self.client
            if client is None or self.stop.is_set():
                return
            try:
                with anyio.fail_after(request_timeout(self.server)):
                    await client.send_ping()
            except Exception as exc:  # noqa: BLE001 - a fixed kind, never the text
                if not self.stop.is_set():
                    self._gone_idle(classify(exc, self.server, IDLE))
                return

    async def _watch(self) -> None:
        """Wait until told to stop or until the server is gone; in the second case, say why
        (the exit and its status when the transport knows it) and stop."""
        import anyio

        from lemon_core.mcp.client.errors import IDLE

        closed = getattr(self.transport, "wait_closed", None)
        async with anyio.create_task_group() as tg:
            async def watch() -> None:
                await closed()
                if not self.stop.is_set():
                    self.gone, self.client = True, None  # no call starts while we ask why
                    self._gone_idle(await self.why_closed(IDLE))

            if closed is not None:
                tg.start_soon(watch)
            if self.heartbeat_s is not None and self.server.transport != "stdio":
                tg.start_soon(self._heartbeat)
            await self.stop.wait()
            tg.cancel_scope.cancel()

    async def run(self) -> None:
        import anyio

        from lemon_core.mcp.client.connection import connect
        from lemon_core.mcp.client.transports import ready_timeout, request_timeout
        from lemon_core.mcp.runtime.authorize import login_budget

        budget = ready_timeout(self.server) + request_timeout(self.server) + \
            login_budget(self.server)  # a person's PKCE login, when the host asks for one
        server = self.server
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + budget) as scope:
                async with connect(server, self.ctx, errlog=self.errlog,
                                   message_handler=self._on_message,
                                   sampling_callback=self.sampling,
                                   on_transport=self._keep_transport) as client:
                    scope.deadline = math.inf
                    self.client = client
                    self.ready.set()
                    await self._watch()
            if scope.cancelled_caught and self.client is None:
                self.error = McpConnectionError(server.name, server.transport, "timeout",
                                                phase="handshake", seconds=budget)
        except McpConnectionError as exc:
            self.error = exc
        except Exception:  # noqa: BLE001 - a fixed kind, never the exception's text
            self.error = McpConnectionError(server.name, server.transport, "protocol")
        finally:
            self.client = None
            self.ready.set()
            self.done.set()


def _quiet_ping_deprecation() -> None:
    """The SDK warns that ``ping`` leaves the protocol after 2026-07-28; lemon speaks the
    legacy protocol, where every server answers it, so the warning says nothing to the user."""
    import warnings

    warnings.filterwarnings("ignore", message="ping is removed", module=__name__)


__all__ = ["HEARTBEAT_S", "Connection"]
