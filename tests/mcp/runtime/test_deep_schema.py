"""A tool whose ``inputSchema`` nests 400 levels deep (issue 17 §8): it is left out at once with
a message naming the server, the tool and the limit, the server's other tools stay usable, and
no command waits out a timeout ("no answer within 10 s" before). A real server process over
stdio (``deep_server.py``, written without the SDK, whose own server refuses such a list)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.depth import MAX_SCHEMA_DEPTH
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

DEEP = str(Path(__file__).parent / "deep_server.py")
LEMON = [sys.executable, "-c",
         "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"]
TIMEOUT = {"timeout_ms": 20_000, "ready_timeout_ms": 20_000}
SAID = (f'server "deep" (stdio): tool "deep" left out: its inputSchema nests deeper than '
        f"{MAX_SCHEMA_DEPTH} levels (lemon's limit); the server's other tools are usable")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def _entry(depth: int) -> dict[str, object]:
    return {"name": "deep", "type": "stdio", "command": sys.executable,
            "args": [DEEP, str(depth)], "approval": "never", **TIMEOUT}


@pytest.mark.parametrize("depth", [100, 400])
def test_a_deep_schema_leaves_that_tool_out_at_once(ctx: LemonContext, depth: int) -> None:
    write_project(ctx.cwd, _entry(depth))
    started = time.monotonic()
    with McpHost(ctx, ladder_s=(600.0,)) as host:
        tools = {t.raw: t for t in host.tools()}
        assert "deep" not in tools and {"ok", "deep_result"} <= set(tools)
        state = {s.name: s for s in host.status()}["deep"]
        assert state.connected and state.error_kind == "schema"
        assert state.last_error == SAID
        result = host.call(tools["ok"].name, {"x": "1"})
        assert result.ok and result.result["content"][0]["text"] == "called ok"  # type: ignore[index]
    assert time.monotonic() - started < 15  # never the 20 s request timeout


def test_an_answer_too_deep_to_parse_fails_its_call_at_once(ctx: LemonContext) -> None:
    write_project(ctx.cwd, _entry(3))
    with McpHost(ctx, ladder_s=(600.0,)) as host:
        tools = {t.raw: t for t in host.tools()}
        assert "deep" in tools  # 3 levels: kept
        started = time.monotonic()
        result = host.call(tools["deep_result"].name)
        assert not result.ok and result.error_kind == "refused", result
        assert time.monotonic() - started < 15
        assert host.call(tools["ok"].name).ok  # the connection is still up


def test_lemon_mcp_tools_lists_the_rest_and_says_why(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_project(project, _entry(400))
    (tmp_path / "home").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEMON_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), LEMON_AGENT_DIR=str(tmp_path / "agent"),
               LEMON_CACHE_DIR=str(tmp_path / "cache"), LEMON_MCP_EXTERNAL_DISCOVERY="0")
    started = time.monotonic()
    done = subprocess.run([*LEMON, "mcp", "tools"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert SAID in done.stderr and "no answer" not in done.stderr
    assert "mcp_deep_ok_" in done.stdout and "mcp_deep_deep_" not in done.stdout.replace(
        "mcp_deep_deep_result_", "")
    assert elapsed < 15
