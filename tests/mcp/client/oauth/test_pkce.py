"""Authorization code with PKCE for a public client: the library hands the URL to a callback,
the test plays the browser (fetches the URL; the authorization server redirects to lemon's
localhost receiver), the tokens are cached and later connections use and refresh them without
a person. Without a callback a login that needs one fails at once with ``auth_required``."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.oauth_login import login, logout
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.client.oauth.authserver import PUBLIC_CLIENT
from tests.mcp.client.oauth.conftest import Rig, write_project
from tests.mcp.client.oauth.support import (
    cache_files,
    expire_cached,
    read_cache,
    server,
)
from tests.mcp.client.servers import free_port


def pkce_entry(rig: Rig, **more: object) -> dict[str, object]:
    return rig.entry(client_id=PUBLIC_CLIENT, flow="authorization_code_pkce",
                     redirect_uri=f"http://127.0.0.1:{free_port()}/callback", scope="tools",
                     **more)


async def browser(url: str) -> None:
    """What a person's browser does: open the URL, follow the redirect to the receiver."""
    async with httpx2.AsyncClient(trust_env=False, follow_redirects=True) as client:
        answer = await client.get(url)
    assert answer.status_code == 200 and b"You can close this window" in answer.content


def test_login_runs_pkce_through_the_localhost_redirect(rig: Rig, ctx: LemonContext) -> None:
    write_project(ctx.cwd, pkce_entry(rig))
    urls: list[str] = []

    async def on_url(url: str) -> None:
        urls.append(url)
        await browser(url)

    result = login(ctx, "api", on_url)
    assert result.flow == "authorization_code_pkce" and result.tool_count == 1
    (url,) = urls
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert url.startswith(f"{rig.auth.url}/authorize?")
    assert query["client_id"] == PUBLIC_CLIENT and query["code_challenge_method"] == "S256"
    assert query["scope"] == "tools" and query["response_type"] == "code"
    token = next(s for s in rig.auth.seen if s.path == "/token")
    assert token.form["grant_type"] == "authorization_code"
    assert len(token.form["code_verifier"]) >= 43 and "client_secret" not in token.form
    (path,) = cache_files(ctx)
    assert result.cache_file == path and read_cache(path)["tokens"]["refresh_token"]

    # later connections need no person: the cached token, then a refresh when it expired
    with McpHost(ctx) as host:
        assert "echo" in [t.raw for t in host.tools()]
    expire_cached(ctx, rig)
    with McpHost(ctx) as host:
        assert "echo" in [t.raw for t in host.tools()]
    assert rig.auth.grants == ["authorization_code", "refresh_token"]
    refresh = next(s for s in rig.auth.seen if s.form.get("grant_type") == "refresh_token")
    assert refresh.form["client_id"] == PUBLIC_CLIENT and "authorization" not in refresh.headers

    assert logout(ctx, "api") is True and cache_files(ctx) == []
    assert logout(ctx, "api") is False


def test_without_a_callback_a_login_is_required_at_once(rig: Rig, ctx: LemonContext) -> None:
    entry = server(rig, client_id=PUBLIC_CLIENT, flow="authorization_code_pkce",
                   redirect_uri=f"http://127.0.0.1:{free_port()}/callback")
    started = time.monotonic()
    with pytest.raises(McpConnectionError) as caught:
        probe(entry, ctx)
    assert time.monotonic() - started < 20
    assert caught.value.kind == "auth_required"
    assert "lemon mcp login api" in str(caught.value)
    assert "/authorize" not in [s.path for s in rig.auth.seen]
    assert "/token" not in [s.path for s in rig.auth.seen]


def test_the_host_reports_auth_required(rig: Rig, ctx: LemonContext) -> None:
    write_project(ctx.cwd, pkce_entry(rig))
    with McpHost(ctx) as host:
        assert host.tools() == ()
        (status,) = host.status()
    assert not status.connected and status.error_kind == "auth_required"
    assert "lemon mcp login api" in (status.last_error or "")


def test_a_redirect_with_the_wrong_state_is_refused(rig: Rig, ctx: LemonContext) -> None:
    write_project(ctx.cwd, pkce_entry(rig))

    async def forged(url: str) -> None:
        query = parse_qs(urlsplit(url).query)
        receiver = query["redirect_uri"][0]
        async with httpx2.AsyncClient(trust_env=False) as client:
            await client.get(receiver, params={"code": "CODE-forged", "state": "not-it"})

    with pytest.raises(McpConnectionError) as caught:
        login(ctx, "api", forged)
    assert caught.value.kind == "auth_failed" and "not-it" not in str(caught.value)
    assert "/token" not in [s.path for s in rig.auth.seen] and cache_files(ctx) == []


def test_the_wait_for_the_redirect_is_bounded(rig: Rig, ctx: LemonContext) -> None:
    write_project(ctx.cwd, pkce_entry(rig, authorization_timeout_ms=300))
    with pytest.raises(McpConnectionError) as caught:
        login(ctx, "api", lambda url: None)  # nobody opens the URL
    assert caught.value.kind == "auth_timeout" and "0.3 s" in str(caught.value)

