"""Finding a hosted tool the way people type it.

A tool is named either by its model-facing name (``mcp_calc_add_<hex>``, what discovery
returns) or by its server and its raw name on that server (``calc`` ``add``; for lemon's
utilities the utility's name, ``resources_list``). When nothing matches,
:class:`~lemon_core.errors.NotFoundError` says so with the closest names (``difflib``), each
escaped, so a typo is one look away from the right command.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lemon_core.errors import NotFoundError
from lemon_core.mcp.names import SUGGESTIONS
from lemon_core.mcp.names import close_names as close
from lemon_core.text import escape


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f"'{escape(n)}'" for n in names)


def find_tool(tools: Sequence[Any], name: str, tool: str | None = None) -> Any:
    """The :class:`~lemon_core.mcp.runtime.inventory.HostedTool` of ``tools`` named ``name``
    (model-facing), or, with ``tool``, the one whose server is ``name`` and whose raw name is
    ``tool``. Raises :class:`NotFoundError` with close-name suggestions."""
    if tool is None:
        match = next((t for t in tools if t.name == name), None)
        if match is not None:
            return match
        raise NotFoundError(_unknown_name(tools, name))
    on_server = [t for t in tools if t.server == name]
    match = next((t for t in on_server if t.raw == tool), None)
    if match is not None:
        return match
    if not on_server:
        message = f"no MCP server named '{escape(name)}' has tools in this project's inventory"
        near = close(name, (t.server for t in tools))
        if near:
            message += f"; did you mean {_quoted(near)}?"
        raise NotFoundError(message + " (see 'lemon mcp status')")
    message = f"server '{escape(name)}' has no tool named '{escape(tool)}'"
    near = close(tool, (t.raw for t in on_server))
    if near:
        message += f"; did you mean {_quoted(near)}?"
    raise NotFoundError(message + f" (see 'lemon mcp tools {escape(name)}')")


def _unknown_name(tools: Sequence[Any], name: str) -> str:
    message = f"no MCP tool named '{escape(name)}' in this project's inventory"
    pairs = [t for t in tools if t.raw == name]  # a tool's own name: give its server too
    if not pairs:
        near = close(name, (t.name for t in tools))
        if near:
            return message + (f"; did you mean {_quoted(near)}? Or list the tools again "
                               "('lemon mcp tools')")
        near_raw = close(name, (t.raw for t in tools))
        pairs = [t for t in tools if t.raw in near_raw]
    if pairs:
        shown = ", ".join(f"'{escape(t.server)} {escape(t.raw)}'" for t in pairs[:SUGGESTIONS])
        return message + f"; did you mean the server and the tool: {shown}?"
    return message + ("; list the tools again ('lemon mcp tools') and use a name from there, "
                      "or give the server and the tool ('SERVER TOOL')")


__all__ = ["find_tool"]
