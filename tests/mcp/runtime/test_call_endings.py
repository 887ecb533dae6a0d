"""A call whose connection ends under it says why (issue 17 §8): a 50 MB result is "the result
exceeded lemon's 8 MiB stdio message limit", a server that exits mid-call is "the server exited
during the call (exit status N)" or "(killed by signal 9, SIGKILL)", never "closed before the
handshake finished". Real SDK servers over stdio (``ending_server.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import SECRET, SLOW, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

ENDING = str(Path(__file__).parent / "ending_server.py")
LEMON = [sys.executable, "-c",
         "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"]


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def _entry(name: str = "ending") -> dict[str, object]:
    return {"name": name, "type": "stdio", "command": sys.executable, "args": [ENDING],
            "env": {"API_KEY": SECRET}, **SLOW}


def _names(host: McpHost) -> dict[str, str]:
    return {t.raw: t.name for t in host.tools() if t.server == "ending"}


def _status(host: McpHost, kind: str) -> object:
    end = time.monotonic() + 30
    while True:
        state = {s.name: s for s in host.status()}["ending"]
        if state.error_kind == kind:
            return state
        assert time.monotonic() < end, state
        time.sleep(0.05)


def test_a_50_mb_result_is_reported_as_over_the_limit(ctx: LemonContext) -> None:
    write_project(ctx.cwd, _entry())
    with McpHost(ctx, ladder_s=(600.0,)) as host:
        result = host.call(_names(host)["big"], {"size": 50_000_000})
        assert not result.ok and result.error_kind == "oversized", result
        assert "the result exceeded lemon's 8 MiB stdio message limit" in (result.error or "")
        assert "handshake" not in (result.error or "")
        assert "8 MiB" in (_status(host, "oversized").last_error or "")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("tool", "args", "said"), [
    ("exit", {"code": 3}, "the server exited during the call (exit status 3)"),
    ("kill", {}, f"the server exited during the call (killed by signal {int(signal.SIGKILL)}, SIGKILL)"),
])
def test_a_server_that_exits_mid_call_is_reported_with_its_status(
        ctx: LemonContext, tool: str, args: dict[str, object], said: str) -> None:
    write_project(ctx.cwd, _entry())
    with McpHost(ctx, ladder_s=(600.0,)) as host:
        result = host.call(_names(host)[tool], args)
        assert not result.ok and result.error_kind == "exited", result
        assert said in (result.error or "") and "handshake" not in (result.error or "")
        assert result.to_json()["error"]["kind"] == "exited"
        state = _status(host, "exited")
        assert said in (state.last_error or "")  # type: ignore[attr-defined]
        assert SECRET not in str(state) and ENDING not in str(state)


@pytest.mark.slow
def test_lemon_mcp_call_prints_what_happened(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_project(project, {**_entry(), "approval": "never"})
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEMON_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), LEMON_AGENT_DIR=str(tmp_path / "agent"),
               LEMON_CACHE_DIR=str(tmp_path / "cache"), LEMON_MCP_EXTERNAL_DISCOVERY="0")

    def lemon(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*LEMON, *argv], cwd=project, env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    listed = lemon("mcp", "tools").stdout
    name = next(w for w in listed.split() if w.startswith("mcp_ending_exit_"))
    done = lemon("mcp", "call", name, "--args", '{"code": 7}')
    assert done.returncode == 1
    assert "the server exited during the call (exit status 7)" in done.stderr
    assert "handshake" not in done.stderr
