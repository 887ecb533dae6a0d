"""An SDK server for the client tests: ``python sdk_server.py TRANSPORT PORT MARKER``.

It serves two tools over ``streamable-http`` (``/mcp``) or ``sse`` (``/sse``) on 127.0.0.1;
calling ``touch`` writes MARKER, so a test can tell that no tool was called.
"""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

transport, port, marker = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
server = MCPServer("lemon-test-server", version="9.9")


@server.tool()
def touch() -> str:
    """Write the marker file."""
    marker.write_text("called")
    return "ok"


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


server.run(transport, host="127.0.0.1", port=port)
