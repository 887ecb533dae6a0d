"""Fixtures of the OAuth tests: one authorization server (in this process) and one SDK
Streamable HTTP MCP server requiring its tokens (a subprocess), both on 127.0.0.1 and shared by
a module's tests; each test starts from a fresh server state, agent dir and project."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from lemon_core.context import LemonContext
from tests.mcp.client.oauth.authserver import AuthServerState, auth_server
from tests.mcp.client.servers import _wait_for, free_port, stop

pytest.importorskip("mcp")

HERE = Path(__file__).parent
HEADER_SECRET = "CONFIGURED-HEADER-8888"


@attrs.define
class Rig:
    auth: AuthServerState
    mcp_url: str
    log: Path

    def reset(self) -> None:
        fresh = AuthServerState(url=self.auth.url)
        for field in attrs.fields(AuthServerState):
            setattr(self.auth, field.name, getattr(fresh, field.name))
        self.log.write_text("", encoding="utf-8")

    def mcp_requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def entry(self, name: str = "api", **oauth: Any) -> dict[str, Any]:
        extra = {k: oauth.pop(k) for k in ("persist_oauth_tokens", "oauth_token_secret")
                 if k in oauth}
        return {"name": name, "type": "http", "url": self.mcp_url,
                "headers": {"X-Configured": HEADER_SECRET}, "timeout_ms": 30_000,
                "ready_timeout_ms": 30_000, "oauth": oauth, **extra}


@pytest.fixture(scope="module")
def rig_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    log = tmp_path_factory.mktemp("oauth") / "mcp-requests.jsonl"
    log.write_text("", encoding="utf-8")
    with auth_server() as state:
        port = free_port()
        proc = subprocess.Popen([sys.executable, str(HERE / "resource_server.py"), str(port),
                                 state.url, str(log)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(port, proc)
            yield Rig(state, f"http://127.0.0.1:{port}/mcp", log)
        finally:
            stop(proc)


@pytest.fixture
def rig(rig_servers: Rig) -> Rig:
    rig_servers.reset()
    return rig_servers


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def write_project(project: Path, *servers: dict[str, Any], trusted: bool = True) -> Path:
    """Write ``.lemon/mcp.json`` with ``servers`` and, unless ``trusted`` is false, record
    them as trusted (the user's ``lemon mcp trust``) in the test's agent folder."""
    from tests.helpers import trust_project

    if trusted and servers:  # first: a running host never sees them untrusted
        trust_project(project, servers=servers)
    path = project / ".lemon" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"servers": list(servers)}), encoding="utf-8")
    return path
