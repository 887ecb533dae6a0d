"""``lemon mcp serve``: the project's MCP servers, through lemon's tool host, as one stdio MCP
server for any client (:mod:`lemon_core.mcp.gateway`). stdout carries the protocol only;
notes (skipped servers) go to stderr."""

from __future__ import annotations

from pathlib import Path

import typer

from lemon_core.cli.mcp import CWD, _context, app


@app.command("serve", short_help="Serve the project's MCP servers to any client over stdio.")
def serve(
    cwd: Path | None = CWD,
    skills: bool = typer.Option(False, "--skills",
                                help="Also offer find_skills, load_skill and read_skill, as "
                                     "'lemon skill serve' does."),
) -> None:
    """Run an MCP server on stdin/stdout exposing every enabled server of the project's
    effective set under lemon's names, filters and approvals (a tool needing approval asks
    through MCP elicitation, or is refused). Register it in an agent as the command
    'lemon mcp serve'; lemon never edits that agent's files. An entry that runs 'lemon mcp
    serve' itself is skipped."""
    from lemon_core import __version__
    from lemon_core.cli.output import warn
    from lemon_core.mcp.servers.sdk import require_sdk

    ctx = _context(cwd)
    backend = None
    if skills:
        from lemon_core.mcp.servers.backend import Deferred

        def load() -> object:
            from lemon_core.mcp.servers.lemon_backend import LemonBackend

            return LemonBackend(ctx)

        backend = Deferred(load)  # the catalog loads while the SDK imports
    require_sdk()
    import anyio

    from lemon_core.mcp.gateway.bridge import Gateway
    from lemon_core.mcp.gateway.server import build_server, serve_stdio

    skill_server = None
    if backend is not None:
        from lemon_core.mcp.servers.app import build_server as build_skills

        skill_server = build_skills(backend, name="lemon-skills", version=__version__,
                                    read_tool=True)
    gateway = Gateway(ctx, notice=lambda message: warn(message, label="note"))
    server = build_server(gateway, version=__version__, skills=skill_server)
    try:
        anyio.run(serve_stdio, gateway, server)
    except KeyboardInterrupt:
        pass
    finally:
        gateway.close()
        if backend is not None:
            backend.close()
