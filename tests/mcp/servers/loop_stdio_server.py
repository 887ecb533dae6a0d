"""An SDK low-level server on lemon's stdio server transport, for its tests:
``python loop_stdio_server.py [LIMIT]``.

Its one tool ``echo`` prints ``printed:<text>`` with ``print`` (which the transport's claim
sends to stderr, not the wire) and answers ``<text>``. When its input has ended it writes one
more line on the restored stdout: ``after <served on the loop> <blocking modes restored>``.
"""

import os
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

from lemon_core.mcp.lines import MAX_MESSAGE_BYTES
from lemon_core.mcp.servers.stdio import loop_can_serve, stdio_server


async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    return types.ListToolsResult(tools=[types.Tool(name="echo", input_schema=schema)])


async def call_tool(ctx, params):
    text = str((params.arguments or {}).get("text", ""))
    print(f"printed:{text}", flush=True)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("loop", on_list_tools=list_tools, on_call_tool=call_tool)
limit = int(sys.argv[1]) if len(sys.argv) > 1 else MAX_MESSAGE_BYTES
on_loop = loop_can_serve()
modes = (os.get_blocking(0), os.get_blocking(1))


async def main():
    async with stdio_server(limit) as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
restored = (os.get_blocking(0), os.get_blocking(1)) == modes
os.write(1, f"after {on_loop} {restored}\n".encode())
