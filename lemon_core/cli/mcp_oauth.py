"""``lemon mcp login NAME`` and ``lemon mcp logout NAME``: OAuth for Streamable HTTP entries.

Registers on :data:`lemon_core.cli.mcp.app`; a thin layer over
:mod:`lemon_core.mcp.client.oauth_login`. ``login`` prints the authorization URL of an
interactive (PKCE) entry on stderr and waits for the localhost redirect; a client-credentials
entry just fetches its token. No token or secret is ever printed.
"""

from __future__ import annotations

from pathlib import Path

import typer

from lemon_core.cli.mcp import CWD, _context, app

_NAME = typer.Argument(..., metavar="NAME", help="The server's exact name.")


@app.command("login", short_help="Log in to an MCP server over OAuth and cache its tokens.")
def login(
    name: str = _NAME,
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Run NAME's OAuth flow and cache the tokens privately (<agent dir>/mcp-oauth, 0600). An
    authorization-code (PKCE) entry prints a URL to open in a browser and waits for the
    redirect to its local redirect_uri; a client-credentials entry fetches a token. Other
    commands then use (and refresh) the cached tokens without asking."""
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.mcp.client.errors import McpConnectionError
    from lemon_core.mcp.client.oauth_login import login as run_login
    from lemon_core.mcp.client.oauth_login import oauth_server

    ctx = _context(cwd)
    _server, settings = oauth_server(ctx, name)

    def show_url(url: str) -> None:
        say(f'To log in to MCP server "{name}", open this URL in a browser (lemon waits up to '
            f"{settings.authorization_timeout:g} s for the redirect to {settings.redirect_uri}):",
            url, err=True)

    try:
        result = run_login(ctx, name, show_url)
    except McpConnectionError as exc:
        if as_json:
            emit_json({"name": name, "ok": False, "flow": settings.flow,
                       "error": exc.as_json()})
        raise
    where = result.cache_file
    if as_json:
        emit_json({"name": name, "ok": True, "flow": result.flow, "persisted": where is not None,
                   "cache_file": None if where is None else str(where),
                   "tool_count": result.tool_count})
        return
    tools = "1 tool" if result.tool_count == 1 else f"{result.tool_count} tools"
    if where is None:
        say(f'Logged in to MCP server "{name}" ({result.flow}, {tools}).')
        warn("persist_oauth_tokens is false: the tokens were kept in memory and are gone now "
             "that this command ends")
        return
    say(f'Logged in to MCP server "{name}" ({result.flow}, {tools}); tokens cached in {where} '
        "(private, 0600).")


@app.command("logout", short_help="Forget an MCP server's cached OAuth tokens.")
def logout(
    name: str = _NAME,
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Delete NAME's cached OAuth tokens (the file under <agent dir>/mcp-oauth). The
    authorization server is not told; revoke the grant there if it must end now."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.mcp.client.oauth_login import logout as run_logout

    forgot = run_logout(_context(cwd), name)
    if as_json:
        emit_json({"name": name, "forgot": forgot})
        return
    say(f'Forgot the cached OAuth tokens of MCP server "{name}".' if forgot else
        f'No cached OAuth tokens for MCP server "{name}".')
