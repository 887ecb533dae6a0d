"""Each OAuth request has its own deadline and a bounded answer: a stuck authorization server
fails the metadata or token request at half the entry's timeout_ms (before the MCP request
that needed the token gives up, not at the whole connection's deadline), an oversized metadata document (plain, or compressed to look small) is refused
unread, and MCP requests are not touched. Against the real servers on 127.0.0.1."""

from __future__ import annotations

import time
from typing import Any

import anyio
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.oauth.limits import (
    MAX_AUTH_RESPONSE_BYTES,
    BoundedAuthRequests,
    mark,
)
from lemon_core.mcp.schema import parse_entry
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET
from tests.mcp.client.oauth.conftest import HEADER_SECRET, Rig
from tests.mcp.client.oauth.support import SOURCE, credentials


def _entry(rig: Rig, **fields: Any) -> Any:
    raw = rig.entry(client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                    token_auth_method=rig.auth.auth_method)
    return parse_entry({**raw, **fields}, label="servers[0]", source=SOURCE)


def _clean(rig: Rig, message: str) -> None:
    for secret in (CLIENT_SECRET, HEADER_SECRET, rig.auth.url, rig.mcp_url):
        assert secret not in message


@pytest.mark.slow
@pytest.mark.parametrize(("path", "what"), [("/.well-known/oauth-authorization-server",
                                             "metadata"), ("/token", "token")])
def test_a_stuck_authorization_server_fails_at_the_requests_own_deadline(
        rig: Rig, ctx: LemonContext, path: str, what: str) -> None:
    rig.auth.delays[path] = 30.0
    entry = _entry(rig, timeout_ms=4000)  # each OAuth request: 2 s; the connection: 30 + 4 s
    started = time.monotonic()
    with pytest.raises(McpConnectionError) as caught:
        probe(entry, ctx)
    assert time.monotonic() - started < 20
    assert caught.value.kind == "auth_request_timeout"
    assert f"a {what} request within 2 s" in str(caught.value)
    _clean(rig, str(caught.value))


@pytest.mark.parametrize("compressed", [False, True])
def test_an_oversized_metadata_answer_is_refused_unread(rig: Rig, ctx: LemonContext,
                                                        compressed: bool) -> None:
    rig.auth.metadata_padding = 3 * MAX_AUTH_RESPONSE_BYTES
    rig.auth.metadata_gzip = compressed  # then a few KiB on the wire, 3 MiB decoded
    with pytest.raises(McpConnectionError) as caught:
        probe(credentials(rig), ctx)
    assert caught.value.kind == "auth_response_too_large"
    assert "metadata request (more than 1024 KiB)" in str(caught.value)
    _clean(rig, str(caught.value))
    assert "client_credentials" not in rig.auth.grants  # no token was asked for


def test_compressed_metadata_of_a_normal_size_works(rig: Rig, ctx: LemonContext) -> None:
    rig.auth.metadata_gzip = True
    assert [t.name for t in probe(credentials(rig), ctx).tools] == ["echo"]
    assert rig.auth.grants == ["client_credentials"]


def test_only_marked_requests_are_bounded(rig: Rig) -> None:
    """The transport leaves the MCP requests alone (the SDK bounds those itself)."""
    import httpx2

    async def fetch(marked: bool) -> int:
        bounded = BoundedAuthRequests(httpx2.AsyncHTTPTransport(trust_env=False), "api", 5.0,
                                      max_bytes=100)  # the metadata document is larger
        async with httpx2.AsyncClient(transport=bounded, trust_env=False) as client:
            request = client.build_request(
                "GET", f"{rig.auth.url}/.well-known/oauth-authorization-server")
            if marked:
                mark(request)
            return len((await client.send(request)).content)

    assert anyio.run(fetch, False) > 100
    with pytest.raises(McpConnectionError) as caught:
        anyio.run(fetch, True)
    assert caught.value.kind == "auth_response_too_large"
    assert "metadata request (more than 100 bytes)" in str(caught.value)


def test_a_failure_after_the_oauth_flow_is_not_reported_as_its_401(rig: Rig,
                                                                   ctx: LemonContext) -> None:
    """The flow began with the server's 401; what fails later is not that 401."""
    from lemon_core.mcp.client.connection import connect

    async def body() -> None:
        async with connect(credentials(rig), ctx) as client:
            # an answer past the SDK's own 1 MiB limit on one event of the MCP stream
            await client.call_tool("echo", {"text": "e", "times": 2 * MAX_AUTH_RESPONSE_BYTES})

    with pytest.raises(McpConnectionError) as caught:
        anyio.run(body)
    assert caught.value.kind != "http_status" and "401" not in str(caught.value)
    _clean(rig, str(caught.value))
