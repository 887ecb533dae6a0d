"""Why a connection to an MCP server failed, said without its configuration.

A server entry holds credentials (environment values, headers, tokens in URLs and arguments)
and a transport's own exception text may repeat them (an ``httpx`` error names the URL, a
spawn error the command line). So a failure is reported as one of a few fixed kinds, each
with a fixed message naming only the server's name, its transport and, for HTTP, the status
code; the original exception is never shown.
"""

from __future__ import annotations

from lemon_core.errors import LemonError

#: kind -> what happened (no value from the configuration or the transport's own text)
MESSAGES = {
    "spawn_failed": "the command could not be started (is it installed and on PATH?)",
    "connect_failed": "could not connect (nothing is listening there, or the host is "
                      "unreachable)",
    "timeout": "no answer in time",
    "http_status": "the server answered with an HTTP error",
    "closed": "the connection closed before the handshake finished (the server exited or "
              "hung up)",
    "protocol": "the server did not speak MCP as expected",
    "refused": "the server answered with an MCP error",
    "sdk_missing": "the MCP Python SDK is not installed: pip install 'lemon-core[mcp]'",
    "invalid_config": "the entry cannot be used as it is (see lemon mcp list --all)",
    "oversized": "the server sent a message larger than lemon's 8 MiB stdio limit",
}


class McpConnectionError(LemonError):
    """A connection, handshake or discovery failed; ``kind`` is a key of :data:`MESSAGES`,
    ``status`` the HTTP status for ``http_status``, ``phase`` the step that failed."""

    def __init__(self, name: str | None, transport: str, kind: str, *, phase: str = "connect",
                 status: int | None = None, seconds: float | None = None) -> None:
        what = MESSAGES.get(kind, "the connection failed")
        if kind == "http_status" and status is not None:
            what = f"the server answered HTTP {status}"
        if kind == "timeout" and seconds is not None:
            what = f"no answer within {seconds:g} s"
        label = f'server "{name}"' if name else "the server"
        super().__init__(f"{label} ({transport}): {phase} failed: {what}")
        self.name = name
        self.transport = transport
        self.kind = kind
        self.phase = phase
        self.status = status

    def as_json(self) -> dict[str, object]:
        """The ``error`` object of a command's ``--json`` output (fixed text, no credential)."""
        return {"kind": self.kind, "phase": self.phase, "status": self.status,
                "message": str(self)}


__all__ = ["MESSAGES", "McpConnectionError"]
