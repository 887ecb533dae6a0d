"""One live connection of the tool host: a task holding an SDK client open until it is told
to stop or the server goes away. The handshake is bounded by the entry's ready timeout plus
its request timeout; the session itself is not.

While it is open the connection is watched (:mod:`lemon_core.mcp.client.watch`): a server that
exits or hangs up while no request is running ends it at once, with the reason (``exited``
and the exit status, or ``closed``) in :attr:`Connection.error`, so the host starts its
reconnect ladder then rather than at the next call. The watch waits on the transport and the
process; it never polls."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TextIO

from lemon_core.context import LemonContext
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.models import McpServer

#: The SDK's notification types that mean "list again".
LIST_CHANGED = frozenset({"ToolListChangedNotification", "ResourceListChangedNotification",
                          "PromptListChangedNotification"})


class Connection:
    """``client`` is the initialized SDK client while connected; ``error`` the last failure
    (a fixed-kind :class:`McpConnectionError`); ``retired`` once the server left the set."""

    def __init__(self, server: McpServer, identity: str, ctx: LemonContext,
                 errlog: TextIO | None = None,
                 on_change: Callable[[Connection], None] | None = None,
                 sampling: Any = None) -> None:
        import anyio

        self.server = server
        self.identity = identity
        self.ctx = ctx
        self.errlog = errlog
        self.on_change = on_change
        #: the SDK sampling callback (:mod:`lemon_core.mcp.runtime.sampling`), or None: off
        self.sampling = sampling
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
        if type(message).__name__ in LIST_CHANGED and not self.retired and self.on_change:
            self.on_change(self)

    async def _watch(self) -> None:
        """Wait until told to stop or until the server is gone; in the second case, say why
        (the exit and its status when the transport knows it) and stop."""
        import anyio

        from lemon_core.mcp.client.errors import IDLE

        closed = getattr(self.transport, "wait_closed", None)
        async with anyio.create_task_group() as tg:
            async def watch() -> None:
                await closed()
                if self.stop.is_set():
                    return
                self.gone = True
                self.client = None
                why = await self.why_closed(IDLE)
                if self.error is None:  # a failed request may have said it already
                    self.error = why or McpConnectionError(self.server.name,
                                                           self.server.transport, "closed",
                                                           phase=IDLE)
                self.stop.set()

            if closed is not None:
                tg.start_soon(watch)
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


__all__ = ["Connection"]
