"""The tool host's results as MCP ``tools/call`` results, and lemon's own failures as tool
errors with fixed text (never a command, URL, header, environment value or a transport's
words: the host's messages are already of that kind)."""

from __future__ import annotations

import json
from typing import Any

from lemon_core.mcp.gateway import shown
from lemon_core.text import defang, escape

PREFIX = "lemon: "


def tool_error(message: str) -> Any:
    import mcp_types as types

    return types.CallToolResult(content=[types.TextContent(text=PREFIX + defang(message))],
                                is_error=True)


def unknown(name: str) -> Any:
    shown = escape(name[:80])
    return tool_error(f"no tool named '{shown}' is served here (the inventory may have "
                      "changed); list the tools again and use a name from there")


def from_host(tool: Any, result: Any) -> Any:
    """``result`` (a :class:`~lemon_core.mcp.runtime.calls.CallResult`) for ``tool``: a remote
    tool's own result (``is_error`` kept) with its text defanged (:mod:`.shown`); a utility's
    MCP result, defanged, as JSON text and structured content; a failed call as a tool error
    naming its kind."""
    import mcp_types as types

    if not result.ok:
        return tool_error(f"{result.error_kind}: {result.error}")
    data = result.result or {}
    if tool.kind == "tool":
        return types.CallToolResult.model_validate(shown.result(data))
    data = shown.data({k: v for k, v in data.items() if k not in ("_meta", "resultType")})
    return types.CallToolResult(
        content=[types.TextContent(text=json.dumps(data, ensure_ascii=False))],
        structured_content=data)


__all__ = ["PREFIX", "from_host", "tool_error", "unknown"]
