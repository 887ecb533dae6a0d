"""The MCP client: connecting to one configured server with the official ``mcp`` SDK (stdio,
Streamable HTTP, legacy SSE), the handshake, and ``lemon mcp test``.

- :mod:`~lemon_core.mcp.client.transports`: the SDK transport for a server entry;
- :mod:`~lemon_core.mcp.client.connection`: :func:`connect` (an initialized session, for the
  tool host to build on), :func:`probe` (``lemon mcp test``: handshake, tool discovery, close);
- :mod:`~lemon_core.mcp.client.errors`: failures as fixed kinds, never configuration text.
"""
