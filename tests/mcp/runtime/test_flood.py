"""The tool host and a server flooding stdout: a 9 MiB line ends that server's connection with
the fixed reason ``oversized`` and the others keep working; a server sending many messages
quickly, and a result just under the limit, work."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import SECRET, SLOW, stdio_entry, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

FLOOD = str(Path(__file__).parents[1] / "client" / "flood_server.py")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def _flood_entry(name: str) -> dict[str, object]:
    return {"name": name, "type": "stdio", "command": sys.executable, "args": [FLOOD, "mcp"],
            "env": {"API_KEY": SECRET}, **SLOW}


@pytest.mark.slow
def test_a_flooding_server_is_cut_off_as_oversized_and_the_others_stay(
        ctx: LemonContext, tmp_path: Path) -> None:
    write_project(ctx.cwd, _flood_entry("flood"),
                  stdio_entry("ok", "tools-only", tmp_path / "ok.log"))
    with McpHost(ctx, ladder_s=(600.0,)) as host:  # no reconnect during the test
        names = {(t.server, t.raw): t.name for t in host.tools()}
        result = host.call(names[("flood", "flood")])
        assert not result.ok and result.error_kind == "oversized", result
        end = time.monotonic() + 60
        while True:
            state = {s.name: s for s in host.status()}
            if state["flood"].error_kind == "oversized":
                break
            assert time.monotonic() < end, state["flood"]
            time.sleep(0.1)
        flood = state["flood"]
        assert not flood.connected and "8 MiB" in (flood.last_error or "")
        assert SECRET not in str(flood) and FLOOD not in str(flood)
        assert state["ok"].connected and state["ok"].error_kind is None
        assert host.call(names[("ok", "read_file")], {"path": "a"}).ok


@pytest.mark.slow
def test_many_messages_quickly_and_a_result_under_the_limit_work(ctx: LemonContext) -> None:
    write_project(ctx.cwd, _flood_entry("busy"))
    with McpHost(ctx) as host:
        names = {t.raw: t.name for t in host.tools()}
        chatty = host.call(names["chatty"], {"count": 3000})  # ~6 MiB of notifications
        assert chatty.ok and not chatty.is_error, chatty
        size = 3_500_000  # text and structured content: a line of about 7 MB, under 8 MiB
        big = host.call(names["big"], {"size": size})
        assert big.ok and not big.is_error
        text = big.result["content"][0]["text"]
        assert len(text) == size
        assert host.call(names["echo"], {"text": "still here"}).ok


@pytest.mark.slow
def test_a_successful_reconnect_clears_the_oversized_error(ctx: LemonContext) -> None:
    write_project(ctx.cwd, _flood_entry("flood"))
    with McpHost(ctx, ladder_s=(0.2, 0.2, 0.2)) as host:
        names = {t.raw: t.name for t in host.tools()}
        assert not host.call(names["flood"]).ok  # a 9 MiB line: the connection ends
        end = time.monotonic() + 60
        seen: set[str | None] = set()
        while True:  # it goes down as oversized, then the ladder brings it back
            flood = host.last_status()[0]
            seen.add(flood.error_kind)
            if "oversized" in seen and flood.connected and flood.tools:
                break
            assert time.monotonic() < end, (seen, flood)
            time.sleep(0.05)
        assert flood.error_kind is None and flood.last_error is None, flood
        assert host.status()[0].last_error is None
        assert host.call(names["echo"], {"text": "back"}).ok
