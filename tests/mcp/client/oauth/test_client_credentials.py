"""Client credentials through the SDK's provider against a real authorization server and a
real SDK MCP server requiring a bearer token (both on 127.0.0.1)."""

from __future__ import annotations

import base64

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.schema import parse_entry
from lemon_core.models import ServerSource
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET
from tests.mcp.client.oauth.conftest import HEADER_SECRET, Rig

SOURCE = ServerSource("lemon", "project", "/p/.lemon/mcp.json")


def server(rig: Rig, **oauth: object):  # type: ignore[no-untyped-def]
    return parse_entry(rig.entry(**oauth), label="servers[0]", source=SOURCE)


@pytest.mark.parametrize("method", ["client_secret_post", "client_secret_basic"])
def test_client_credentials_discovers_and_authenticates(rig: Rig, ctx: LemonContext,
                                                        method: str) -> None:
    rig.auth.auth_method = method
    result = probe(server(rig, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                          token_auth_method=method), ctx)
    assert [t.name for t in result.tools] == ["echo"]
    token = next(s for s in rig.auth.seen if s.path == "/token")
    assert token.form["grant_type"] == "client_credentials"
    if method == "client_secret_basic":
        basic = base64.b64decode(token.headers["authorization"][6:]).decode()
        assert basic == f"{CLIENT_ID}:{CLIENT_SECRET}" and "client_secret" not in token.form
    else:
        assert token.form["client_secret"] == CLIENT_SECRET
        assert "authorization" not in token.headers
    # discovery: a 401 from the MCP server, its protected-resource metadata, the AS metadata
    paths = [r["path"] for r in rig.mcp_requests()]
    assert paths[:2] == ["/mcp", "/.well-known/oauth-protected-resource/mcp"]
    assert rig.auth.paths()[0] == "/.well-known/oauth-authorization-server"


def test_metadata_requests_carry_no_configured_headers_or_tokens(rig: Rig,
                                                                 ctx: LemonContext) -> None:
    entry = server(rig, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                   token_auth_method="client_secret_post")
    probe(entry, ctx)
    probe(entry, ctx)  # the second run holds a cached token
    rig.auth.expire_access()  # the third holds one the server rejects, and cannot refresh it
    rig.auth.refresh.clear()
    probe(entry, ctx)
    assert rig.auth.grants == ["client_credentials", "refresh_token", "client_credentials"]
    metadata = [r for r in rig.mcp_requests() if r["path"].startswith("/.well-known/")]
    metadata += [{"path": s.path, "headers": s.headers} for s in rig.auth.seen
                 if s.path.startswith("/.well-known/")]
    assert [r["path"] for r in metadata].count("/.well-known/oauth-protected-resource/mcp") == 2
    for request in metadata:
        assert "authorization" not in request["headers"], request["path"]
        assert "x-configured" not in request["headers"], request["path"]
        assert HEADER_SECRET not in str(request["headers"])
    mcp = [r for r in rig.mcp_requests() if r["path"] == "/mcp"]
    assert all(r["headers"]["x-configured"] == HEADER_SECRET for r in mcp)
    assert any(r["headers"].get("authorization", "").startswith("Bearer AT-") for r in mcp)


def test_secret_from_the_environment(rig: Rig, make_ctx, tmp_path) -> None:  # type: ignore[no-untyped-def]
    env_ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"), API_CLIENT_SECRET=CLIENT_SECRET)
    probe(server(rig, client_id=CLIENT_ID, client_secret_secret="API_CLIENT_SECRET",
                 token_auth_method="client_secret_post"), env_ctx)
    assert rig.auth.grants == ["client_credentials"]


def test_unset_secret_variable_is_a_clear_error(rig: Rig, ctx: LemonContext) -> None:
    from lemon_core.mcp.client.errors import McpConnectionError

    with pytest.raises(McpConnectionError) as caught:
        probe(server(rig, client_id=CLIENT_ID, client_secret_secret="NOT_SET_ANYWHERE"), ctx)
    assert caught.value.kind == "auth_config"
    assert '"NOT_SET_ANYWHERE"' in str(caught.value) and rig.auth.seen == []


def test_wrong_secret_is_a_fixed_auth_failure(rig: Rig, ctx: LemonContext) -> None:
    from lemon_core.mcp.client.errors import McpConnectionError

    with pytest.raises(McpConnectionError) as caught:
        probe(server(rig, client_id=CLIENT_ID, client_secret="WRONG-SECRET-0000",
                     token_auth_method="client_secret_post"), ctx)
    assert caught.value.kind == "auth_failed"
    assert "WRONG-SECRET-0000" not in str(caught.value)
    assert "invalid_client" not in str(caught.value)  # the server's own text is not repeated
