"""A token bucket for a server's notifications, so a flooding server costs lemon little.

A server may send log messages (``notifications/message``), progress
(``notifications/progress``), resource updates and ``list_changed`` notifications at any rate;
each one the SDK parses, validates and dispatches costs CPU (one flood kept 0.65 of a core busy
for 90 s), and each ``list_changed`` starts a refresh. lemon's stdio transport asks
:meth:`NotificationBucket.admit` about every line *before* parsing it: a line that is one of
those notifications (a cheap byte test: it names such a method and carries no ``"id"``, so no
request or response is ever held back) takes a token; with none left it is dropped and counted.
The HTTP transports (Streamable HTTP, SSE) parse inside the SDK, so their messages are asked
about with :meth:`NotificationBucket.admit_message` as they leave the transport, before the
session validates and dispatches them (:mod:`lemon_core.mcp.client.watch`).
The bucket holds :data:`BURST` tokens and refills at :data:`RATE` per second, per connection.
The first drop of each flood (drops with no :data:`QUIET_S` pause) is logged as one warning
(``lemon_core.mcp.client.flood``). A dropped ``list_changed`` calls ``on_missed_change``, so
the tool host refreshes that server once the flood lets it (it coalesces refreshes:
:mod:`lemon_core.mcp.runtime.changes`) instead of missing the change.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

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
_CHANGE = re.compile(rb'"notifications/(?:tools|resources|prompts)/list_changed"')
#: The notification methods the bucket limits, as the HTTP transports hand them over.
LIMITED_METHODS = frozenset({"notifications/message", "notifications/progress",
                             "notifications/resources/updated",
                             "notifications/tools/list_changed",
                             "notifications/resources/list_changed",
                             "notifications/prompts/list_changed"})


class NotificationBucket:
    """``dropped``: how many notifications were dropped so far; ``floods``: how many times
    dropping started (each logged once); ``on_missed_change``: called (no arguments, must not
    block) when a dropped notification was a ``list_changed``."""

    def __init__(self, name: str | None = None, *, rate: float | None = None,
                 burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 on_missed_change: Callable[[], None] | None = None) -> None:
        self.name = name
        self.on_missed_change = on_missed_change
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
        return self._take(lambda: _CHANGE.search(line) is not None)

    def admit_message(self, message: Any) -> bool:
        """Whether a parsed message (the SDK's ``SessionMessage``, or an exception a
        transport hands over) may go on to the session: only notifications of the limited
        methods take a token."""
        inner = getattr(message, "message", None)
        method = getattr(inner, "method", None)
        if method not in LIMITED_METHODS or getattr(inner, "id", None) is not None:
            return True
        return self._take(lambda: method.endswith("/list_changed"))

    def _take(self, is_change: Callable[[], bool]) -> bool:
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
        if self.on_missed_change is not None and is_change():
            self.on_missed_change()
        if not self._flooding:
            self._flooding = True
            self.floods += 1
            who = f'MCP server "{self.name}"' if self.name else "an MCP server"
            logger.warning("lemon: %s sends notifications faster than %g a second; dropping "
                           "the excess (%d dropped so far)", who, self.rate, self.dropped)
        return False


__all__ = ["BURST", "LIMITED_METHODS", "QUIET_S", "RATE", "NotificationBucket"]
