"""PKCE inside the tool host (issue 23 §4), against a real authorization server and a real
Streamable HTTP MCP server on 127.0.0.1: the host runs the localhost redirect receiver itself,
routes the authorization URL through the operator's approval (an OAuth request kind), and
resumes with the server's tools; a no, or no approver, fails that server alone."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.authorize import METHOD, OAuthApproval
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.client.oauth.authserver import PUBLIC_CLIENT
from tests.mcp.client.oauth.conftest import (  # noqa: F401 - fixtures
    Rig,
    ctx,
    rig,
    rig_servers,
    write_project,
)
from tests.mcp.client.oauth.support import cache_files
from tests.mcp.client.servers import free_port

pytest.importorskip("mcp")


def _pkce(rig: Rig, **more: object) -> dict[str, object]:
    return rig.entry(client_id=PUBLIC_CLIENT, flow="authorization_code_pkce",
                     redirect_uri=f"http://127.0.0.1:{free_port()}/callback", scope="tools",
                     authorization_timeout_ms=60_000, **more)


def browse(url: str) -> None:
    """The person's browser: open the URL and follow the redirect to lemon's receiver."""
    with httpx2.Client(trust_env=False, follow_redirects=True) as client:
        answer = client.get(url)
    assert answer.status_code == 200 and b"You can close this window" in answer.content


class Operator:
    def __init__(self, allow: bool = True) -> None:
        self.allow = allow
        self.asked: list[Any] = []

    def __call__(self, request: Any) -> bool:
        self.asked.append(request)
        if isinstance(request, OAuthApproval) and self.allow:
            browse(request.url)  # the approver showed the URL; the person logged in
        return self.allow


def test_the_host_asks_the_operator_then_resumes_with_the_tools(rig: Rig,
                                                                 ctx: LemonContext) -> None:
    entry = _pkce(rig)
    write_project(ctx.cwd, entry)
    operator = Operator()
    with McpHost(ctx, approver=operator) as host:
        assert "echo" in [t.raw for t in host.tools()]
        (status,) = host.status()
    assert status.connected and status.last_error is None
    (request,) = operator.asked
    assert isinstance(request, OAuthApproval)
    assert (request.name, request.target, request.server) == (METHOD, METHOD, "api")
    assert request.url.startswith(f"{rig.auth.url}/authorize?")
    assert request.redirect_uri == entry["oauth"]["redirect_uri"]  # type: ignore[index]
    assert rig.auth.grants == ["authorization_code"] and len(cache_files(ctx)) == 1

    with McpHost(ctx, approver=operator) as host:  # the cached tokens: nobody is asked
        assert "echo" in [t.raw for t in host.tools()]
    assert len(operator.asked) == 1


def test_a_declined_login_fails_that_server_with_auth_declined(rig: Rig,
                                                               ctx: LemonContext) -> None:
    write_project(ctx.cwd, _pkce(rig))
    operator = Operator(allow=False)
    with McpHost(ctx, approver=operator) as host:
        assert host.tools() == ()
        (status,) = host.status()
    assert status.error_kind == "auth_declined" and "lemon mcp login api" in status.last_error
    assert len(operator.asked) == 1 and "/token" not in [s.path for s in rig.auth.seen]
    assert cache_files(ctx) == []


def test_without_approval_the_url_goes_to_the_authorizer(rig: Rig, ctx: LemonContext) -> None:
    write_project(ctx.cwd, _pkce(rig, authorization_approval=False))
    opened: list[str] = []

    def authorizer(url: str) -> None:
        opened.append(url)
        browse(url)

    operator = Operator()
    with McpHost(ctx, approver=operator, authorizer=authorizer) as host:
        assert "echo" in [t.raw for t in host.tools()]
    assert operator.asked == [] and len(opened) == 1

    for path in cache_files(ctx):
        path.unlink()
    with McpHost(ctx, approver=operator) as host:  # no authorizer: nobody to show it to
        assert host.tools() == ()
        (status,) = host.status()
    assert status.error_kind == "auth_required" and operator.asked == []
