"""Refreshes asked for by ``list_changed`` notifications, coalesced per server.

A server may send ``tools/list_changed`` (or the resources and prompts ones) at any rate, over
any transport; each one asks the host to list that server again, and a list is one to four
requests and a rebuild of the exposed names. :class:`RefreshCoalescer` keeps at most one
refresh of a server running and at most one more waiting, and starts them at least
:data:`MIN_GAP_S` apart: a thousand notifications in a second cost two or three refreshes, and
the last notification of a burst is always followed by a refresh that sees its change.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

#: The least time between the starts of two refreshes of one server asked for by
#: notifications.
MIN_GAP_S = 0.5


class _Pending:
    __slots__ = ("asked", "conn", "last", "running")

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.asked = False
        self.running = False
        self.last = float("-inf")


class RefreshCoalescer:
    """``refresh(conn)`` runs in ``start_soon``'s task group; ``refreshes`` counts the
    refreshes started, per server identity."""

    def __init__(self, refresh: Callable[[Any], Awaitable[None]], *,
                 min_gap_s: float = MIN_GAP_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._refresh = refresh
        self.min_gap_s = min_gap_s
        self._clock = clock
        self._pending: dict[str, _Pending] = {}
        self.refreshes: dict[str, int] = {}

    def ask(self, conn: Any, start_soon: Callable[..., Any]) -> None:
        """A notification from ``conn``: refresh it soon (joining a refresh already waiting).
        A new connection of the same server starts afresh."""
        pending = self._pending.get(conn.identity)
        if pending is None or pending.conn is not conn:
            pending = self._pending[conn.identity] = _Pending(conn)
        pending.asked = True
        if not pending.running:
            pending.running = True
            start_soon(self._drain, pending)

    def forget(self, identity: str) -> None:
        """The server left the set."""
        self._pending.pop(identity, None)

    async def _drain(self, pending: _Pending) -> None:
        import anyio

        try:
            while pending.asked and self._pending.get(pending.conn.identity) is pending:
                wait = pending.last + self.min_gap_s - self._clock()
                if wait > 0:
                    await anyio.sleep(wait)
                pending.asked = False  # notifications from now on ask for one more
                pending.last = self._clock()
                ident = pending.conn.identity
                self.refreshes[ident] = self.refreshes.get(ident, 0) + 1
                await self._refresh(pending.conn)
        finally:
            pending.running = False


__all__ = ["MIN_GAP_S", "RefreshCoalescer"]
