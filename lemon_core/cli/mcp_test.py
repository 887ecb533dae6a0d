"""``lemon mcp test NAME``: connect to one configured server, count its tools, close.

Registers on :data:`lemon_core.cli.mcp.app`; a thin layer over
:func:`lemon_core.mcp.client.check.test_server`. Output never shows the command, arguments,
URL, headers or environment of the entry, nor a transport's own error text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.mcp import _GLOBAL_HELP, CWD, _context, _scope, app


def _data(tested: Any) -> dict[str, Any]:
    server, result = tested.server, tested.result
    source = server.server.source
    return {
        "name": result.name,
        "ok": True,
        "transport": result.transport,
        "source": f"{source.provider}:{source.scope}",
        "file": source.file,
        "enabled": server.enabled,
        "protocol_version": result.protocol_version,
        "server": {"name": result.server_name, "version": result.server_version},
        "capabilities": list(result.capabilities),
        "tool_count": result.tool_count,
        "tools": [tool.name for tool in result.tools],
        "elapsed_ms": round(result.elapsed_ms, 1),
    }


@app.command("test", short_help="Connect to a server and count its tools.")
def test(
    name: str = typer.Argument(..., metavar="NAME", help="The server's exact name."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Open an isolated connection to NAME (stdio, Streamable HTTP or SSE), perform the
    handshake and tool discovery, print the tool count and close. NAME is any server of the
    effective set ('lemon mcp list --all': lemon's files, LEMON_MCP_SERVERS, other tools'
    imported files); --global picks from the global scope's set. No tool is called; a
    project's server is started only once trusted ('lemon mcp trust')."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.mcp.client.check import test_server
    from lemon_core.mcp.client.errors import McpConnectionError

    ctx = _context(cwd)
    try:
        tested = test_server(ctx, name, scope=_scope(global_))
    except McpConnectionError as exc:
        if as_json:
            emit_json({"name": name, "ok": False, "transport": exc.transport,
                       "error": exc.as_json()})
        raise
    data = _data(tested)
    if as_json:
        emit_json(data)
        return
    tools = "1 tool" if data["tool_count"] == 1 else f"{data['tool_count']} tools"
    state = "" if tested.server.enabled else " (disabled here)"
    speaker = " ".join(filter(None, (data["server"]["name"], data["server"]["version"])))
    about = f", server {speaker}" if speaker else ""
    default = data["source"] == "lemon:project"  # the project's own file needs no path
    origin = data["source"] + (f" {data['file']}" if data["file"] and not default else "")
    say(f'Server "{name}"{state} ({data["transport"]}, {origin}): connected, {tools} '
        f'(protocol {data["protocol_version"]}{about})')
