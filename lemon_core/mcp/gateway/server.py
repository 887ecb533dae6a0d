"""The SDK server of ``lemon mcp serve`` (the low-level ``Server``: its tool list is asked of
the gateway at every ``tools/list``, so it can change).

Capabilities: ``tools`` with ``listChanged`` (the gateway sends
``notifications/tools/list_changed`` when the inventory changes; on the 2026-07-28 protocol
through the ``subscriptions/listen`` streams the SDK's ``ListenHandler`` serves from the
gateway's bus, which is what makes the SDK advertise ``listChanged`` there). With ``skills`` (an SDK
server built by :func:`lemon_core.mcp.servers.app.build_server`, as ``lemon skill serve``
runs it) its ``find_skills``, ``load_skill`` and ``read_skill`` are listed first and their calls are answered
by that server's own handlers, so they are exactly ``lemon skill serve``'s.
"""

from __future__ import annotations

from typing import Any

from lemon_core.mcp.gateway.bridge import Gateway

SERVER_NAME = "lemon"
SKILL_TOOLS = frozenset({"find_skills", "load_skill", "read_skill"})
INSTRUCTIONS = (
    "lemon serves this project's MCP servers (the effective set: lemon's own mcp.json files "
    "and the servers imported from other tools) through one connection. Call each tool by the "
    "name tools/list returns; never build one. A tool that needs approval asks you first.")


def build_server(gateway: Gateway, *, version: str, skills: Any = None) -> Any:
    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.server.subscriptions import ListenHandler

    skill_list = skills.get_request_handler("tools/list").handler if skills else None
    skill_call = skills.get_request_handler("tools/call").handler if skills else None

    async def list_tools(ctx: Any, params: Any) -> Any:
        tools = list((await skill_list(ctx, params)).tools) if skill_list else []
        tools += await gateway.list_tools(ctx.session)
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        if skill_call is not None and params.name in SKILL_TOOLS:
            return await skill_call(ctx, params)
        return await gateway.call_tool(ctx.session, ctx.request_id, params.name,
                                       dict(params.arguments or {}),
                                       protocol_version=ctx.protocol_version,
                                       input_responses=params.input_responses,
                                       request_state=params.request_state)

    return Server(SERVER_NAME, version=version, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_subscriptions_listen=ListenHandler(gateway.bus))


async def serve_stdio(gateway: Gateway, server: Any) -> None:
    """Serve on this process's stdin/stdout until the input ends, the gateway's discovery
    and change notices running beside it."""
    import anyio
    from mcp.server.lowlevel import NotificationOptions

    from lemon_core.mcp.servers.stdio import stdio_server

    options = server.create_initialization_options(NotificationOptions(tools_changed=True))
    async with anyio.create_task_group() as tg:
        tg.start_soon(gateway.run)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)
        tg.cancel_scope.cancel()


__all__ = ["INSTRUCTIONS", "SERVER_NAME", "SKILL_TOOLS", "build_server", "serve_stdio"]
