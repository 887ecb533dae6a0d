"""A Streamable HTTP (or SSE) MCP server for the tool host's tests:
``python http_notify_server.py TRANSPORT PORT LISTS``.

- ``changes(count)``: sends ``count`` ``tools/list_changed`` notifications, then answers;
- ``logs(count)``: sends ``count`` log messages of 1 KiB, then answers;
- ``echo(text)``: says it back.

Every ``tools/list`` it answers appends a line to the file LISTS, so a test counts the
refreshes a flood of notifications caused.
"""

import sys
import warnings
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")
transport, port, lists = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])


def _count() -> None:
    with lists.open("a", encoding="utf-8") as out:
        out.write("list\n")


class Counting(MCPServer):
    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        _count()
        return await super().list_tools(*args, **kwargs)


server = Counting("http-notify", version="1.0")


@server.tool()
async def changes(count: int, ctx: Context) -> str:
    """Send COUNT tools/list_changed notifications."""
    for _ in range(count):
        await ctx.session.send_tool_list_changed()
    return f"sent {count}"


@server.tool()
async def logs(count: int, ctx: Context) -> str:
    """Send COUNT log messages."""
    for _ in range(count):
        await ctx.session.send_log_message("info", "m" * 1024, logger="flood",
                                           related_request_id=ctx.request_id)
    return f"sent {count}"


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


server.run(transport, host="127.0.0.1", port=port)
