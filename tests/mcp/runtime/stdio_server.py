"""A stdio MCP server for the runtime tests: ``python stdio_server.py MODE LOG [MARKER]``.

Every request it receives is logged to LOG (one method per line, read off stdin before the
SDK sees it), so a test can tell which requests a client sent. MODE:

- ``full``: an SDK ``MCPServer`` (tools, resources and prompts): ``read_file``, ``touch``
  (writes MARKER), ``hang`` (never answers), ``crash`` (exits), ``grow`` (adds ``grown``, sends tools/list_changed), resources ``note://one`` and ``note://two``,
  prompt ``greet``;
- ``tools-only``: a low-level server advertising only tools (``read_file``).
"""

import io
import json
import os
import sys
import threading
from pathlib import Path

mode, log = sys.argv[1], Path(sys.argv[2])
marker = Path(sys.argv[3]) if len(sys.argv) > 3 else None
read_end, write_end = os.pipe()


def _tap() -> None:
    with os.fdopen(write_end, "wb") as sink:
        for line in sys.__stdin__.buffer:
            try:
                method = json.loads(line).get("method")
            except ValueError:
                method = None
            if method:
                with log.open("a", encoding="utf-8") as out:
                    out.write(method + "\n")
            sink.write(line)
            sink.flush()


threading.Thread(target=_tap, daemon=True).start()
sys.stdin = io.TextIOWrapper(os.fdopen(read_end, "rb"), encoding="utf-8")

if mode == "full":
    import anyio
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("runtime-full", version="1.0")

    @server.tool()
    def read_file(path: str) -> str:
        """Read a file (pretend)."""
        return f"full:{path}"

    @server.tool()
    def touch() -> str:
        """Write the marker."""
        if marker is not None:
            with marker.open("a", encoding="utf-8") as out:
                out.write("called\n")
        return "touched"

    @server.tool()
    async def hang() -> str:
        """Never answers."""
        if marker is not None:
            with marker.open("a", encoding="utf-8") as out:
                out.write("hang\n")
        await anyio.sleep(3600)
        return "late"

    @server.tool()
    def crash() -> str:
        """Exit at once, answering nothing."""
        os._exit(1)

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Add the tool ``grown`` and say so with tools/list_changed."""

        def grown() -> str:
            return "grown"

        server.add_tool(grown, name="grown")
        await ctx.notify_tools_changed()  # reaches only 2026 subscriptions/listen streams
        await ctx.session.send_tool_list_changed()  # the handshake era's notification
        return "grew"

    @server.resource("note://one")
    def one() -> str:
        return "first note"

    @server.resource("note://two")
    def two() -> str:
        return "second note"

    @server.prompt()
    def greet(who: str) -> str:
        """Say hello."""
        return f"Hello {who}"

    server.run("stdio")
else:
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    async def list_tools(ctx, params):  # type: ignore[no-untyped-def]
        return types.ListToolsResult(tools=[types.Tool(
            name="read_file", description="Read (tools-only).",
            input_schema={"type": "object", "properties": {"path": {"type": "string"}}})])

    async def call_tool(ctx, params):  # type: ignore[no-untyped-def]
        path = (params.arguments or {}).get("path")
        return types.CallToolResult(content=[types.TextContent(type="text",
                                                               text=f"only:{path}")])

    low = Server("runtime-tools-only", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await low.run(read, write, low.create_initialization_options())

    anyio.run(main)
