"""The MCP client: connecting to one configured server with the official ``mcp`` SDK (stdio,
Streamable HTTP, legacy SSE), the handshake, and ``lemon mcp test``.
"""
