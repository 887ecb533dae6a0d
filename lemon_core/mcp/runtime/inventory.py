"""What discovery exposes: :class:`HostedTool` (a remote tool or a lemon utility under its
model-facing name) and one server's :class:`ServerInventory`, built through the entry's
filters and names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from lemon_core.mcp.runtime.approvals import entry_requires
from lemon_core.mcp.runtime.filters import (
    prompt_allowed,
    resource_allowed,
    tool_allowed,
)
from lemon_core.mcp.runtime.names import model_name
from lemon_core.models import McpServer

_CURSOR = {"cursor": {"type": "string", "description": "The next page's cursor."}}
#: Utility -> (description, input schema); offered only as the server's capabilities allow.
UTILITY_TOOLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "resources_list": ("resources", "List the server's resources (URI, name, type).",
                       {"type": "object", "properties": _CURSOR}),
    "resource_read": ("resources", "Read one of the server's resources by its URI.",
                      {"type": "object", "properties": {"uri": {"type": "string"}},
                       "required": ["uri"]}),
    "prompts_list": ("prompts", "List the server's prompts and their arguments.",
                     {"type": "object", "properties": _CURSOR}),
    "prompt_get": ("prompts", "Get one of the server's prompts by name, with arguments.",
                   {"type": "object",
                    "properties": {"name": {"type": "string"},
                                   "arguments": {"type": "object",
                                                 "additionalProperties": {"type": "string"}}},
                    "required": ["name"]}),
}


@attrs.frozen
class HostedTool:
    """``name`` is the model-facing name; ``raw`` the remote tool's own name (or the utility's
    key), used only at the call boundary; ``approval`` the entry's own requirement."""

    name: str
    server: str
    identity: str
    raw: str
    kind: str
    description: str | None
    input_schema: Mapping[str, Any]
    approval: bool


@attrs.frozen
class ServerInventory:
    """``rejected``: (raw tool name, why) of each tool the server listed that lemon left out
    (an ``inputSchema`` nesting too deep, :func:`lemon_core.mcp.depth.rejection`)."""

    tools: tuple[HostedTool, ...]
    resources: tuple[str, ...]
    prompts: tuple[str, ...]
    capabilities: tuple[str, ...]
    fetched_at: float
    rejected: tuple[tuple[str, str], ...] = ()


def display_name(server: McpServer, identity: str) -> str:
    """The server's name, or for an unnamed legacy entry ``unnamed-<8 hex>``."""
    return server.name or f"unnamed-{identity[:8]}"


def build(server: McpServer, identity: str, remote: list[Any], resources: list[Any],
          prompts: list[Any], capabilities: tuple[str, ...], now: float) -> ServerInventory:
    """The inventory of one server from what it listed (SDK ``Tool``/``Resource``/``Prompt``
    objects), filtered, named, with utilities for the capabilities it advertised."""
    from lemon_core.mcp.depth import rejection

    label = display_name(server, identity)
    allowed = [t for t in remote if tool_allowed(server, t.name)]
    why = {t.name: rejection(t.input_schema) for t in allowed}
    tools = [HostedTool(model_name(identity, label, t.name), label, identity, t.name, "tool",
                        t.description, dict(t.input_schema or {}),
                        entry_requires(server, "tool", t.name))
             for t in allowed if why[t.name] is None]
    rejected = tuple((name, reason) for name, reason in why.items() if reason is not None)
    for key, (capability, about, schema) in UTILITY_TOOLS.items():
        if capability in capabilities:
            tools.append(HostedTool(model_name(identity, label, key, "utility"), label,
                                    identity, key, "utility", about, schema,
                                    entry_requires(server, "utility", key)))
    uris = tuple(r.uri for r in resources if resource_allowed(server, str(r.uri)))
    names = tuple(p.name for p in prompts if prompt_allowed(server, p.name))
    return ServerInventory(tuple(tools), tuple(str(u) for u in uris), names, capabilities, now,
                           rejected)


def rejected_error(server: McpServer, identity: str, inventory: ServerInventory) -> Any:
    """The status error for the tools ``inventory`` left out (kind ``schema``, naming the
    server, the tools and why), or None when it left none out."""
    if not inventory.rejected:
        return None
    from lemon_core.mcp.client.errors import McpConnectionError

    shown = inventory.rejected[:5]
    more = len(inventory.rejected) - len(shown)
    tools = "; ".join(f'tool "{name}" left out: {why}' for name, why in shown)
    tools += f"; and {more} more" if more else ""
    return McpConnectionError(display_name(server, identity), server.transport, "schema",
                              phase="tool discovery",
                              detail=f"{tools}; the server's other tools are usable")


#: Pages of one listing read at most (a server that keeps handing out cursors stops there).
MAX_PAGES = 100


async def listed(client: Any) -> tuple[tuple[str, ...], list[Any], list[Any], list[Any]]:
    """``(capabilities present, tools, resources, prompts)`` of a connected client, each list
    read page by page, and only what the server advertises (a tools-only server gets no
    resource or prompt request)."""
    caps = client.server_capabilities
    present = tuple(f for f in ("tools", "resources", "prompts")
                    if getattr(caps, f, None) is not None)
    tools = await _paged(client.list_tools, "tools") if "tools" in present else []
    resources = await _paged(client.list_resources, "resources") \
        if "resources" in present else []
    prompts = await _paged(client.list_prompts, "prompts") if "prompts" in present else []
    return present, tools, resources, prompts


async def _paged(method: Any, field: str) -> list[Any]:
    items: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await method(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


__all__ = ["MAX_PAGES", "UTILITY_TOOLS", "HostedTool", "ServerInventory", "build", "display_name",
           "listed", "rejected_error"]
