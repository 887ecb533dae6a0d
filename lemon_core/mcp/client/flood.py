"""A token bucket for a server's notifications, so a flooding server costs lemon little.

A server may send log messages (``notifications/message``), progress
(``notifications/progress``), resource updates and ``list_changed`` notifications at any rate;
each one the SDK parses, validates and dispatches costs CPU (one flood kept 0.65 of a core busy
for 90 s), and each ``list_changed`` starts a refresh. lemon's stdio transport asks
:meth:`NotificationBucket.admit` about every line *before* parsing it: a line that is one of
those notifications (a cheap byte test: it names such a method and carries no ``"id"``, so no
request or response is ever held back) takes a token; with none left it is dropped and counted.
The bucket holds :data:`BURST` tokens and refills at :data:`RATE` per second, per connection.
The first drop of each flood (drops with no :data:`QUIET_S` pause) is logged as one warning (``lemon_core.mcp.client.flood``); a
dropped ``list_changed`` is caught up by the next inventory refresh.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

#: Notifications admitted per second, on average, per connection.
RATE = 50.0
#: How many may come at once before the rate applies.
BURST = 200.0
#: A flood ends after this many seconds without a drop.
QUIET_S = 5.0
_LIMITED = re.compile(
    rb'"method"\s*:\s*"notifications/(?:message|progress|resources/updated|'
    rb'(?:tools|resources|prompts)/list_changed)"')


class NotificationBucket:
    """``dropped``: how many notifications were dropped so far; ``floods``: how many times
    dropping started (each logged once)."""

    def __init__(self, name: str | None = None, *, rate: float | None = None,
                 burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.rate = RATE if rate is None else rate  # read now: a benchmark may change them
        self.burst = BURST if burst is None else burst
        self.clock = clock
        self.tokens = self.burst
        self.dropped = 0
        self.floods = 0
        self._stamp = clock()
        self._flooding = False
        self._last_drop = 0.0

    def admit(self, line: bytes) -> bool:
        """Whether ``line`` (one JSON-RPC message) may go on to the session."""
        if b'"id"' in line or _LIMITED.search(line) is None:
            return True
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self._stamp) * self.rate)
        self._stamp = now
        if self._flooding and now - self._last_drop > QUIET_S:
            self._flooding = False  # that flood is over; the next one is logged again
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.dropped += 1
        self._last_drop = now
        if not self._flooding:
            self._flooding = True
            self.floods += 1
            who = f'MCP server "{self.name}"' if self.name else "an MCP server"
            logger.warning("lemon: %s sends notifications faster than %g a second; dropping "
                           "the excess (%d dropped so far)", who, self.rate, self.dropped)
        return False


__all__ = ["BURST", "QUIET_S", "RATE", "NotificationBucket"]
