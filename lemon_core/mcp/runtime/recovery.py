"""Recovery of one server's connection: the reconnect ladder and the crash breaker.

A connection that ends without being asked to (the server exited, the transport broke, the
handshake failed; noticed at once even while no request runs, by the connection's watch) is a
crash; the server is ``reconnecting`` until a new connection answers. It is retried after 500, 1000, 2000 and 4000 ms (a connection
that succeeds starts the ladder again); exhausting the ladder, or more than five crashes within
30 s, marks that server alone unavailable with a fixed reason. Periodic discovery and refresh
do not retry an unavailable server; an explicit refresh (``tools(refresh=True)``) resets it.
"""

from __future__ import annotations

from collections import deque

from lemon_core.mcp.client.errors import McpConnectionError

LADDER_S = (0.5, 1.0, 2.0, 4.0)
BREAKER_CRASHES = 5
BREAKER_WINDOW_S = 30.0


class Health:
    def __init__(self, ladder: tuple[float, ...] = LADDER_S, crashes: int = BREAKER_CRASHES,
                 window_s: float = BREAKER_WINDOW_S) -> None:
        self.ladder = ladder
        self.limit = crashes
        self.window_s = window_s
        self.crashes: deque[float] = deque()
        self.step = 0
        self.unavailable = False
        self.last_error: McpConnectionError | None = None
        #: True from a crash until a new connection answered (or the server is unavailable)
        self.reconnecting = False
        #: how many reconnections were started after crashes (each rung of the ladder tried)
        self.restarts = 0

    def succeeded(self) -> None:
        """A connection is up and answered: the ladder starts again, and the error that
        ended an earlier connection is no longer the server's state."""
        self.step = 0
        self.last_error = None
        self.reconnecting = False

    def crashed(self, now: float, error: McpConnectionError | None) -> float | None:
        """Record a crash; the delay before the next attempt, or None when the server is now
        unavailable (the ladder is exhausted or the breaker tripped)."""
        if error is not None:
            self.last_error = error
        self.crashes.append(now)
        while self.crashes and now - self.crashes[0] > self.window_s:
            self.crashes.popleft()
        if len(self.crashes) > self.limit or self.step >= len(self.ladder):
            self.unavailable = True
            self.reconnecting = False
            return None
        delay = self.ladder[self.step]
        self.step += 1
        self.reconnecting = True
        return delay

    def reset(self) -> None:
        self.crashes.clear()
        self.step = 0
        self.unavailable = False
        self.reconnecting = False

    @staticmethod
    def reason(name: str | None, transport: str) -> str:
        label = f'server "{name}"' if name else "the server"
        return (f"{label} ({transport}): unavailable: it failed repeatedly; an explicit "
                "refresh ('lemon mcp status' again, or tools(refresh=True)) retries it")


__all__ = ["BREAKER_CRASHES", "BREAKER_WINDOW_S", "LADDER_S", "Health"]
