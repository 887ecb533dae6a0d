"""Per-server status of a tool host: connected, counts, capabilities, last error (a fixed,
redacted message: never the configuration or a transport's own text)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen
class ServerStatus:
    name: str
    transport: str
    source: str
    connected: bool
    tools: int = 0
    resources: int = 0
    prompts: int = 0
    capabilities: tuple[str, ...] = ()
    error_kind: str | None = None
    last_error: str | None = None
    #: the connection ended unasked and the reconnect ladder runs (its tools are out meanwhile)
    reconnecting: bool = False
    #: how many reconnections were started after its connections ended (attempts)
    restarts: int = 0

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "transport": self.transport, "source": self.source,
                "connected": self.connected, "tools": self.tools, "resources": self.resources,
                "prompts": self.prompts, "capabilities": list(self.capabilities),
                "last_error": None if self.last_error is None else
                {"kind": self.error_kind, "message": self.last_error},
                "reconnecting": self.reconnecting, "restarts": self.restarts}


class HostStatus(tuple[ServerStatus, ...]):
    """A host's status: the tuple of its servers' :class:`ServerStatus` (iterate it as
    before), with the spec's top level as well: ``disabled`` (MCP is off), ``servers``,
    ``cached_tools`` (the tools in the inventory now) and ``cache_ttl_ms`` (how long a server
    whose refresh fails keeps its last inventory). Read-only, like a tuple."""

    _fields = ("disabled", "cached_tools", "cache_ttl_ms")

    def __new__(
            cls, servers: Any = (), *, disabled: bool = False, cached_tools: int = 0,
            cache_ttl_ms: int = 0) -> HostStatus:
        self = super().__new__(cls, servers)
        object.__setattr__(self, "_top", (disabled, cached_tools, cache_ttl_ms))
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("HostStatus is read-only")

    @property
    def servers(self) -> tuple[ServerStatus, ...]:
        return tuple(self)

    @property
    def disabled(self) -> bool:
        return bool(self._top[0])

    @property
    def cached_tools(self) -> int:
        return int(self._top[1])

    @property
    def cache_ttl_ms(self) -> int:
        return int(self._top[2])

    def to_json(self) -> dict[str, object]:
        return {"disabled": self.disabled, "servers": [s.to_json() for s in self],
                "cached_tools": self.cached_tools, "cache_ttl_ms": self.cache_ttl_ms}


def server_statuses(conns: Mapping[str, Any], inventories: Mapping[str, Any],
                    health: Mapping[str, Any],
                    skipped: Mapping[str, tuple[Any, str]]) -> tuple[ServerStatus, ...]:
    """The status of every connection (by identity) and of every entry left out on purpose,
    from a host's state as it stands."""
    from lemon_core.mcp.runtime.inventory import display_name, rejected_error
    from lemon_core.mcp.runtime.recovery import Health

    out = []
    for ident, conn in list(conns.items()):
        inv = inventories.get(ident)
        src = conn.server.source
        state = health.get(ident)
        # what ended an earlier connection, unless a new one is up (then it is history)
        earlier = state.last_error if state is not None and not conn.connected else None
        err = conn.error or earlier or (rejected_error(conn.server, ident, inv) if inv else None)
        kind, message = (err.kind, str(err)) if err else (None, None)
        if state is not None and state.unavailable:
            kind, message = "unavailable", Health.reason(conn.server.name,
                                                         conn.server.transport)
        out.append(ServerStatus(
            display_name(conn.server, ident), conn.server.transport,
            f"{src.provider}:{src.scope}", conn.connected,
            len(inv.tools) if inv else 0, len(inv.resources) if inv else 0,
            len(inv.prompts) if inv else 0, inv.capabilities if inv else (),
            kind, message, bool(state and state.reconnecting),
            state.restarts if state is not None else 0))
    for ident, (server, reason) in list(skipped.items()):
        out.append(ServerStatus(display_name(server, ident), server.transport,
                                f"{server.source.provider}:{server.source.scope}", False,
                                error_kind="skipped", last_error=reason))
    return tuple(out)


__all__ = ["HostStatus", "ServerStatus", "server_statuses"]
