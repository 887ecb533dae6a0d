"""Bounded JSON lines: splitting a byte stream into messages without ever holding more than a
limit, for both ends of lemon's stdio transports (:mod:`lemon_core.mcp.client.stdio`, where a
server's oversized line ends the connection, and :mod:`lemon_core.mcp.servers.stdio`, where a
client's oversized line is dropped and the next one is read)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

#: The largest JSON-RPC message (one line, without its newline) lemon accepts on stdio; also the
#: most of an unfinished line it holds.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
#: The most bytes read from a pipe at once.
CHUNK_BYTES = 64 * 1024


class Oversized(Exception):
    """A line (or the unfinished rest of one) exceeded the limit."""


class LineSplitter:
    """Splits a byte stream into lines, holding at most ``limit`` bytes of an unfinished line.
    ``high_water`` is the most it ever held.

    A line longer than ``limit`` raises :class:`Oversized`; with ``skip_oversized`` it is
    returned as ``None`` instead (once, as soon as it passes the limit) and the rest of it is
    discarded up to its newline, so the lines after it still come out."""

    def __init__(self, limit: int = MAX_MESSAGE_BYTES, *, skip_oversized: bool = False) -> None:
        self.limit = limit
        self.skip_oversized = skip_oversized
        self.high_water = 0
        self._parts: list[bytes] = []
        self._held = 0
        self._skipping = False

    @property
    def held(self) -> int:
        return self._held

    def feed(self, chunk: bytes) -> list[bytes | None]:
        """The lines ``chunk`` completes (without their newlines); raises :class:`Oversized`
        (or returns ``None`` for the line, see the class) before holding more than ``limit``
        bytes or returning a longer line."""
        lines: list[bytes | None] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if self._skipping:
                self._skipping = False
            elif self._held + end - start > self.limit:
                self._overflow(lines, skip_rest=False)
            elif self._parts:
                self._parts.append(chunk[start:end])
                lines.append(b"".join(self._parts))
                self._parts, self._held = [], 0
            else:
                lines.append(chunk[start:end])
            start = end + 1
        rest = len(chunk) - start
        if rest and not self._skipping:
            if self._held + rest > self.limit:
                self._overflow(lines, skip_rest=True)
            else:
                self._parts.append(chunk[start:] if start else chunk)
                self._held += rest
                self.high_water = max(self.high_water, self._held)
        return lines

    def finish(self) -> bytes:
        """The unfinished last line (the stream ended without its newline), and reset."""
        rest = b"" if self._skipping else b"".join(self._parts)
        self._parts, self._held, self._skipping = [], 0, False
        return rest

    def _overflow(self, lines: list[bytes | None], *, skip_rest: bool) -> None:
        if not self.skip_oversized:
            raise Oversized
        self._parts, self._held = [], 0
        self._skipping = skip_rest
        lines.append(None)


def line_parser(*, replace_invalid_utf8: bool = False) -> Callable[[bytes], Any]:
    """``parse(line)``: one line as the SDK's ``SessionMessage``, or the validation error as a
    value (the session reports it; the line itself is never logged: it may hold secrets).
    ``replace_invalid_utf8`` decodes the line as the SDK's stdio server does (invalid bytes
    become U+FFFD) instead of refusing it."""
    from mcp.shared.message import SessionMessage
    from mcp_types import jsonrpc_message_adapter

    from lemon_core.mcp.depth import salvage

    validate = jsonrpc_message_adapter.validate_json

    def parse(line: bytes) -> Any:
        data = line.decode("utf-8", "replace") if replace_invalid_utf8 else line
        try:
            return SessionMessage(validate(data, by_name=False))
        except ValueError as exc:
            error = exc
        # refused for its depth? a tools/list answer keeps its other tools, any other answer
        # becomes an error for its request (lemon_core.mcp.depth), instead of being dropped
        readable = salvage(data) if not replace_invalid_utf8 else None
        if readable is not None:
            try:
                return SessionMessage(validate(readable, by_name=False))
            except ValueError:
                pass
        logger.debug("a line on stdio is not a JSON-RPC message")
        return error

    return parse


__all__ = ["CHUNK_BYTES", "MAX_MESSAGE_BYTES", "LineSplitter", "Oversized", "line_parser"]
