"""Per-server status of a tool host: connected, counts, capabilities, last error (a fixed,
redacted message: never the configuration or a transport's own text)."""

from __future__ import annotations

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

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "transport": self.transport, "source": self.source,
                "connected": self.connected, "tools": self.tools, "resources": self.resources,
                "prompts": self.prompts, "capabilities": list(self.capabilities),
                "last_error": None if self.last_error is None else
                {"kind": self.error_kind, "message": self.last_error}}


__all__ = ["ServerStatus"]
