"""A stdio MCP server that samples inside its tools: ``python sampling_server.py``.

- ``capability``: ``sampling`` when the client advertised the sampling capability, else ``none``;
- ``ask(question)``: sends ``sampling/createMessage`` (a system prompt, the question as the user
  message and an earlier assistant turn, model hint ``claude-hint``, max tokens 77) and answers
  ``model|text`` of the result, or ``error|CODE|MESSAGE`` when the client refused.
"""

import warnings

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

warnings.simplefilter("ignore")
server = MCPServer("sampling", version="1.0")


@server.tool()
def capability(ctx: Context) -> str:
    """Whether the client can sample."""
    caps = ctx.client_capabilities
    return "sampling" if caps is not None and caps.sampling is not None else "none"


@server.tool()
async def ask(question: str, ctx: Context) -> str:
    """Ask the client's model."""
    messages = [
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hello")),
        types.SamplingMessage(role="assistant",
                              content=types.TextContent(type="text", text="hi there")),
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question)),
    ]
    prefs = types.ModelPreferences(hints=[types.ModelHint(name="claude-hint")],
                                   intelligence_priority=0.9)
    try:
        result = await ctx.session.create_message(
            messages, max_tokens=77, system_prompt="SYSTEM-PROMPT-TEXT",
            model_preferences=prefs, related_request_id=ctx.request_id)
    except MCPError as exc:
        return f"error|{exc.error.code}|{exc.error.message}"
    return f"{result.model}|{result.content.text}"


server.run("stdio")
