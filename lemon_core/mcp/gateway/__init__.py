"""``lemon mcp serve``: one stdio MCP server in front of a project's tool host.

:mod:`.server` builds the SDK server, :mod:`.bridge` routes its requests to one
:class:`~lemon_core.mcp.runtime.host.McpHost`, :mod:`.results` turns host results into MCP
tool results, :mod:`.elicit` asks for approvals through MCP elicitation, :mod:`.notify`
tells the client when the inventory changed, and :mod:`.selfref` keeps a gateway from serving
itself.
"""
