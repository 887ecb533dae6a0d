"""``lemon mcp serve`` and a hosted server that needs a PKCE login (issue 23 §4): the
gateway carries the authorization URL to the person through elicitation, the person logs in
(the test plays the browser against a real authorization server on 127.0.0.1), and the
server's tools appear; a declined login leaves that server out with auth_declined."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.mcp.client.oauth.authserver import PUBLIC_CLIENT
from tests.mcp.client.oauth.conftest import Rig, rig, rig_servers  # noqa: F401 - fixtures
from tests.mcp.client.servers import free_port
from tests.mcp.gateway.support import gateway, stderr_of
from tests.mcp.runtime.support import write_project

pytest.importorskip("mcp")


def _project(tmp_path: Path, rig: Rig) -> Path:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    write_project(project, rig.entry(client_id=PUBLIC_CLIENT, flow="authorization_code_pkce",
                                     redirect_uri=f"http://127.0.0.1:{free_port()}/callback",
                                     scope="tools", authorization_timeout_ms=60_000))
    return project


def _url_of(params: Any) -> str:
    url = getattr(params, "url", None)
    if url:
        return str(url)
    found = re.search(r"(http://127\.0\.0\.1:\d+/authorize\?\S+)", params.message)
    assert found, params.message
    return found.group(1)


@pytest.mark.parametrize("accept", [True, False])
def test_serve_carries_the_login_url_through_elicitation(tmp_path: Path, rig: Rig,
                                                        accept: bool) -> None:
    import mcp_types as types

    project = _project(tmp_path, rig)
    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params)
        if not accept:
            return types.ElicitResult(action="decline")
        async with httpx2.AsyncClient(trust_env=False, follow_redirects=True) as client:
            answer = await client.get(_url_of(params))
        assert answer.status_code == 200
        if getattr(params, "url", None):
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"approve": True})

    async def body() -> list[str]:
        async with gateway(project, tmp_path, elicitation_callback=elicit) as client:
            tools = (await client.list_tools()).tools
            names = [t.name for t in tools]
            if accept:
                echo = next(n for n in names if n.startswith("mcp_api_echo_"))
                result = await client.call_tool(echo, {"text": "hi"})
                assert not result.is_error
            return names

    names = anyio.run(body)
    assert len(asked) == 1
    url = _url_of(asked[0])
    assert url.startswith(f"{rig.auth.url}/authorize?") and '"api"' in asked[0].message
    if accept:
        assert any(n.startswith("mcp_api_echo_") for n in names)
        assert rig.auth.grants == ["authorization_code"]
    else:
        assert not [n for n in names if n.startswith("mcp_api_")]
        assert "/token" not in [s.path for s in rig.auth.seen]
        assert "auth_declined" in stderr_of(tmp_path) or \
            "did not approve the OAuth login" in stderr_of(tmp_path)
