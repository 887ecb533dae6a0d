"""``lemon mcp login`` and ``logout`` as library calls.

:func:`login` connects to one server of the project's effective set with an authorizer in
place, so an authorization-code (PKCE) entry hands its URL to ``on_url`` and waits for the
localhost redirect, and a client-credentials entry simply fetches a token; the tokens land in
the entry's cache slot (:mod:`lemon_core.mcp.client.oauth`). :func:`logout` forgets a slot's tokens. Neither returns or prints a
token.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError, UsageError
from lemon_core.mcp.client.oauth.interactive import Authorizer, authorize_with
from lemon_core.mcp.client.oauth.settings import OAuthSettings, settings_for
from lemon_core.mcp.client.oauth.store import CacheFile, forget
from lemon_core.mcp.names import check_name, show
from lemon_core.models import McpServer


@attrs.frozen
class LoginResult:
    name: str
    flow: str
    #: The cache file, or None when tokens stay in memory (``persist_oauth_tokens: false``).
    cache_file: Path | None
    tool_count: int


def oauth_server(ctx: LemonContext, name: str) -> tuple[McpServer, OAuthSettings]:
    """The effective set's server ``name`` and its OAuth settings; a server without an
    ``oauth`` block is a usage error."""
    from lemon_core.mcp.effective import effective_servers

    check_name(name)
    found = effective_servers(ctx).get(name)
    if found is None:
        raise NotFoundError(f"no MCP server named {show(name)} in this project's effective set; "
                            "see 'lemon mcp list --all'")
    settings = settings_for(found.server, ctx)
    if settings is None:
        raise UsageError(f"MCP server {show(name)} has no oauth block (only Streamable HTTP "
                         "entries of lemon's own files have one); see docs/mcp-oauth.md")
    return found.server, settings


async def login_async(ctx: LemonContext, name: str, on_url: Authorizer) -> LoginResult:
    """:func:`login` in a running event loop."""
    import anyio

    from lemon_core.mcp.client.connection import connect, list_all_tools
    from lemon_core.mcp.client.transports import ready_timeout, request_timeout
    from lemon_core.mcp.trust.policy import require_trusted

    server, settings = oauth_server(ctx, name)
    require_trusted(ctx, server)  # login contacts the server (and its OAuth endpoints)
    budget = settings.authorization_timeout + ready_timeout(server) + request_timeout(server)
    with authorize_with(on_url), anyio.fail_after(budget):
        async with connect(server, ctx) as client:
            tools = await list_all_tools(client)
    return LoginResult(name, settings.flow, CacheFile(settings, ctx).path, len(tools))


def login(ctx: LemonContext, name: str, on_url: Authorizer) -> LoginResult:
    """Log in to ``name``: connect, run the OAuth flow (``on_url(url)`` receives the
    authorization URL of an interactive flow and should show it to the user), list the tools
    and close. Raises :class:`~lemon_core.mcp.client.errors.McpConnectionError` (fixed kinds,
    :class:`~.errors.OAuthError` for OAuth ones) when it fails."""
    import anyio

    return anyio.run(lambda: login_async(ctx, name, on_url))


def logout(ctx: LemonContext, name: str) -> bool:
    """Forget ``name``'s cached tokens (file and memory); True when there were some."""
    _server, settings = oauth_server(ctx, name)
    return forget(settings, ctx)


__all__ = ["LoginResult", "login", "login_async", "logout", "oauth_server"]
