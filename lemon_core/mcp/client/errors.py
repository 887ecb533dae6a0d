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
    "exited": "the server exited",
    "schema": "the server listed a tool lemon cannot use",
}

#: The phase of a connection that ended while no request was running (the runtime's watch).
IDLE = "idle"

#: A message of more than this is cut off on stdio (the spec's 8 MiB protocol buffering limit).
STDIO_LIMIT_MIB = 8


def _exit_text(exit_status: int) -> str:
    """``exit status 3`` or ``killed by signal 9 (SIGKILL)`` (a negative status, POSIX)."""
    if exit_status >= 0:
        return f"exit status {exit_status}"
    import signal

    try:
        name = f", {signal.Signals(-exit_status).name}"
    except ValueError:
        name = ""
    return f"killed by signal {-exit_status}{name}"


def _what(kind: str, phase: str, status: int | None, seconds: float | None,
          exit_status: int | None) -> str:
    """What happened, in words fit for ``phase`` (a call is not a handshake)."""
    if kind == "http_status" and status is not None:
        return f"the server answered HTTP {status}"
    if kind == "timeout" and seconds is not None:
        return f"no answer within {seconds:g} s"
    if phase == IDLE and kind in ("exited", "closed"):
        how = f" ({_exit_text(exit_status)})" if exit_status is not None else ""
        went = "exited" if kind == "exited" else "closed the connection"
        return f"the server {went} while no request was running{how}"
    if kind == "closed" and phase not in ("connect", "handshake"):
        return f"the server closed the connection during the {phase} (it hung up)"
    if kind == "oversized" and phase == "call":
        return (f"the result exceeded lemon's {STDIO_LIMIT_MIB} MiB stdio message limit "
                f"(the server sent a message of more than {STDIO_LIMIT_MIB} MiB); ask the "
                "tool for less")
    if kind == "exited":
        during = f" during the {phase}" if phase != "connect" else ""
        how = f" ({_exit_text(exit_status)})" if exit_status is not None else ""
        return f"the server exited{during}{how}"
    return MESSAGES.get(kind, "the connection failed")


class McpConnectionError(LemonError):
    """A connection, handshake or discovery failed; ``kind`` is a key of :data:`MESSAGES`,
    ``status`` the HTTP status for ``http_status``, ``phase`` the step that failed."""

    def __init__(self, name: str | None, transport: str, kind: str, *, phase: str = "connect",
                 status: int | None = None, seconds: float | None = None,
                 exit_status: int | None = None, detail: str | None = None) -> None:
        what = _what(kind, phase, status, seconds, exit_status)
        if detail:
            what = f"{what}: {detail}"
        label = f'server "{name}"' if name else "the server"
        if kind == "schema" and detail:  # a tool left out; the server itself works
            super().__init__(f"{label} ({transport}): {detail}")
        elif phase == IDLE:  # nothing failed: the server went away between requests
            super().__init__(f"{label} ({transport}): {what}")
        else:
            super().__init__(f"{label} ({transport}): {phase} failed: {what}")
        self.name = name
        self.transport = transport
        self.kind = kind
        self.phase = phase
        self.status = status
        #: the stdio server's exit status for ``exited`` (negative: killed by that signal)
        self.exit_status = exit_status
        self.detail = detail

    def during(self, phase: str) -> McpConnectionError:
        """The same failure, said for another step (the stream that ended a call)."""
        if phase == self.phase:
            return self
        return McpConnectionError(self.name, self.transport, self.kind, phase=phase,
                                  status=self.status, exit_status=self.exit_status,
                                  detail=self.detail)

    def as_json(self) -> dict[str, object]:
        """The ``error`` object of a command's ``--json`` output (fixed text, no credential)."""
        data: dict[str, object] = {"kind": self.kind, "phase": self.phase,
                                   "status": self.status, "message": str(self)}
        if self.exit_status is not None:
            data["exit_status"] = self.exit_status
        return data


__all__ = ["IDLE", "MESSAGES", "STDIO_LIMIT_MIB", "McpConnectionError"]
