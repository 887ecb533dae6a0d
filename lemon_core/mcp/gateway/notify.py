"""Telling the client its tool list changed (``notifications/tools/list_changed``).

The tool host calls :meth:`ChangeNotifier.changed` on its own loop thread whenever the exposed
inventory changes (a backend's ``list_changed``, a server lost or back, a rediscovery that found
another configuration); that only sets a thread-safe flag. :meth:`ChangeNotifier.run`, on the
gateway's loop, wakes, compares what the host exposes now with what the client last listed,
and sends one notification when they differ (none before the client has listed at all, none
twice for the same difference).

How it is sent follows the protocol of the client's last listing: on the handshake protocols
as ``notifications/tools/list_changed`` on that connection; on 2026-07-28, which delivers change
notifications only on the ``subscriptions/listen`` streams the client opened, as a
``ToolsListChanged`` event published on the gateway's subscription bus (the SDK's
``mcp.server.subscriptions.ListenHandler`` serves those streams and stamps each copy).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any


def signature(tools: Sequence[Any]) -> tuple[Any, ...]:
    """What a client sees of a tool list: names, descriptions and input schemas."""
    import json

    return tuple((t.name, t.description, json.dumps(dict(t.input_schema), sort_keys=True,
                                                    default=str)) for t in tools)


class ChangeNotifier:
    def __init__(self, current: Callable[[], Awaitable[Sequence[Any]]],
                 bus: Any = None) -> None:
        self._current = current
        self.bus = bus
        self._flag = threading.Event()
        self._stopping = False
        self.session: Any = None
        self.listed: tuple[Any, ...] | None = None
        self._announced: tuple[Any, ...] | None = None
        self.sent = 0

    def changed(self) -> None:
        """Called by the host (any thread, must not block)."""
        self._flag.set()

    def listed_now(self, session: Any, tools: Sequence[Any]) -> None:
        """The client just listed ``tools`` on ``session``."""
        self.session = session
        self.listed = signature(tools)
        self._announced = None

    async def run(self) -> None:
        import anyio

        while not self._stopping:
            await anyio.to_thread.run_sync(self._flag.wait, abandon_on_cancel=True)
            self._flag.clear()
            if self._stopping or self.session is None or self.listed is None:
                continue
            now = signature(await self._current())
            if now in (self.listed, self._announced):
                continue
            self._announced = now
            with contextlib.suppress(Exception):  # the client left: nothing to tell
                await self._send()
                self.sent += 1

    async def _send(self) -> None:
        from lemon_core.mcp.gateway.rounds import is_modern

        if is_modern(getattr(self.session, "protocol_version", None)):
            if self.bus is not None:
                from mcp.server.subscriptions import ToolsListChanged

                await self.bus.publish(ToolsListChanged())
            return
        await self.session.send_tool_list_changed()

    def stop(self) -> None:
        self._stopping = True
        self._flag.set()


__all__ = ["ChangeNotifier", "signature"]
