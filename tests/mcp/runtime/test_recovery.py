"""Recovery and freshness: a crashed server is reconnected along the ladder; the breaker and an
exhausted ladder mark only that server unavailable; an explicit refresh resets it;
``list_changed`` refreshes the owning server through its filters."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from lemon_core.mcp.runtime.recovery import Health
from tests.mcp.runtime.support import (
    SECRET,
    methods,
    stdio_entry,
    wait_until,
    write_project,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def _until(check: Callable[[], bool], seconds: float = 90.0) -> None:
    wait_until(check, seconds, pause=0.1)


def _state(host: McpHost, name: str):  # type: ignore[no-untyped-def]
    return next(s for s in host.status() if s.name == name)


def test_the_ladder_and_the_breaker_by_numbers() -> None:
    health = Health((0.5, 1.0, 2.0, 4.0), crashes=5, window_s=30.0)
    assert [health.crashed(0.0, None) for _ in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert health.crashed(0.0, None) is None and health.unavailable
    health.reset()
    delays = []
    for i in range(6):  # each reconnect succeeds, then the server crashes again
        delays.append(health.crashed(float(i), None))
        health.succeeded()
    assert delays[:5] == [0.5] * 5 and delays[5] is None  # the sixth crash in 30 s trips it
    health.reset()
    assert [health.crashed(t, None) for t in (0, 31, 62)] == [0.5, 1.0, 2.0]


@pytest.mark.slow
def test_a_crashed_server_is_reconnected_and_refreshed(ctx: LemonContext,
                                                       tmp_path: Path) -> None:
    log = tmp_path / "c.log"
    write_project(ctx.cwd, stdio_entry("c", "full", log, block_resources=["note://two"]))
    with McpHost(ctx, ladder_s=(0.1, 0.2, 0.4, 0.8)) as host:
        tools = {t.raw: t.name for t in host.tools()}
        failed = host.call(tools["crash"])
        assert not failed.ok and failed.error_kind == "exited", failed
        _until(lambda: methods(log).count("initialize") == 2 and _state(host, "c").connected
               and _state(host, "c").tools > 0)
        assert host.call(tools["read_file"], {"path": "z"}).ok  # same names after recovery
        assert _state(host, "c").resources == 1  # refreshed through the same filters


@pytest.mark.slow
def test_the_breaker_marks_only_that_server_unavailable(ctx: LemonContext,
                                                        tmp_path: Path) -> None:
    log = tmp_path / "b.log"
    write_project(ctx.cwd, stdio_entry("b", "full", log),
                  stdio_entry("ok", "tools-only", tmp_path / "ok.log"))
    with McpHost(ctx, ladder_s=(0.1,) * 4, breaker_crashes=1) as host:
        crash = next(t.name for t in host.tools() if t.raw == "crash")
        host.call(crash)
        _until(lambda: _state(host, "b").connected)
        host.call(crash)  # the second crash within 30 s trips a breaker of 1
        _until(lambda: _state(host, "b").error_kind == "unavailable")
        state = _state(host, "b")
        assert "failed repeatedly" in (state.last_error or "") and SECRET not in str(state)
        assert {t.server for t in host.tools()} == {"ok"}
        assert _state(host, "ok").connected
        starts = methods(log).count("initialize")
        host.refresh_s = 0.0  # periodic discovery cannot bypass the breaker
        host.tools()
        assert methods(log).count("initialize") == starts
        assert "b" in {t.server for t in host.tools(refresh=True)}  # an explicit one resets


def test_an_exhausted_ladder_leaves_a_fixed_reason(ctx: LemonContext, tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    write_project(ctx.cwd, {"name": "dies", "type": "stdio", "command": sys.executable,
                            "args": ["-c", (f"open({str(starts)!r}, 'a').write('x'); "
                                            f"print({SECRET!r}); raise SystemExit(1)")],
                            "timeout_ms": 60_000, "ready_timeout_ms": 60_000})
    with McpHost(ctx, ladder_s=(0.05, 0.05)) as host:
        assert host.tools() == ()
        _until(lambda: _state(host, "dies").error_kind == "unavailable")
        assert starts.read_text() == "xxx"  # the first attempt and the two rungs
        assert SECRET not in str(_state(host, "dies").to_json())


@pytest.mark.slow
def test_list_changed_refreshes_through_the_filters(ctx: LemonContext, tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    write_project(ctx.cwd, stdio_entry("g", "full", log, block_tools=["crash", "hang"]))
    with McpHost(ctx) as host:
        tools = {t.raw: t.name for t in host.tools()}
        assert "grown" not in tools
        assert host.call(tools["grow"]).ok
        _until(lambda: "grown" in {t.raw for t in host.tools()})
        assert not {"crash", "hang"} & {t.raw for t in host.tools()}
        assert methods(log).count("tools/list") == 2
