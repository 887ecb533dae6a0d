"""The host configured from Python (servers and switches in code), the spec's status shape,
and the periodic inventory refresh of a long-lived host."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.appconfig import McpAppConfig
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import (
    SECRET,
    methods,
    stdio_entry,
    wait_until,
    write_project,
)

pytest.importorskip("mcp")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def _until(check: Callable[[], bool], seconds: float = 90.0) -> None:
    wait_until(check, seconds, pause=0.05)


@pytest.mark.slow
def test_servers_given_in_code_are_hosted_without_a_trust_record(ctx: LemonContext,
                                                                 tmp_path: Path) -> None:
    bad = {"name": "bad", "type": "stdio", "command": "x", "env": {"K": ["not", SECRET]}}
    config = McpAppConfig(mcp_servers=[stdio_entry("coded", "tools-only", tmp_path / "c.log"),
                                       bad])
    asked: list[str] = []

    def trust(project: Path, server: object) -> bool:
        asked.append(str(server))
        return False

    with McpHost(ctx, config=config, trust=trust) as host:
        tools = host.tools()
        assert {t.server for t in tools} == {"coded"} and asked == []
        (state,) = host.status()
        assert state.source == "app:app" and state.connected
        (error,) = host.config_errors
        assert error.provider == "app" and 'mcp_servers[1] "bad": field "env"' in error.message
        assert SECRET not in error.message
        result = host.call(tools[0].name, {"path": "p"})
        assert result.ok


@pytest.mark.slow
def test_mcp_disabled_in_code_and_the_environment_wins(
        make_ctx: Callable[..., LemonContext], tmp_path: Path) -> None:
    entry = stdio_entry("coded", "tools-only", tmp_path / "c.log")
    config = McpAppConfig(mcp_servers=[entry], mcp_disabled=True)
    with McpHost(make_ctx(), config=config) as host:
        assert host.disabled and host.tools() == () and host.status().disabled
    assert methods(tmp_path / "c.log") == []  # nothing was started
    with McpHost(make_ctx(LEMON_MCP_DISABLED="0"), config=config) as host:
        assert not host.disabled and len(host.tools()) == 1


@pytest.mark.slow
def test_status_has_the_specs_shape(ctx: LemonContext, tmp_path: Path) -> None:
    write_project(ctx.cwd, stdio_entry("full", "full", tmp_path / "f.log"))
    with McpHost(ctx, ttl_s=120) as host:
        status = host.status()
        assert len(status) == 1 and status[0].name == "full"  # still a tuple of servers
        data = status.to_json()
        assert list(data) == ["disabled", "servers", "cached_tools", "cache_ttl_ms"]
        assert data["disabled"] is False and data["cache_ttl_ms"] == 120_000
        assert data["cached_tools"] == len(host.tools()) == status.cached_tools > 0
        assert data["servers"] == [status[0].to_json()]
        assert {"name", "connected", "tools", "last_error", "reconnecting",
                "restarts"} <= set(data["servers"][0])  # type: ignore[index]


@pytest.mark.slow
def test_the_inventory_is_refreshed_on_a_timer(ctx: LemonContext, tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    write_project(ctx.cwd, stdio_entry("a", "tools-only", log))
    changed = threading.Event()
    host = McpHost(ctx, refresh_s=0.5, on_change=changed.set)
    with host:
        assert {t.server for t in host.tools()} == {"a"}
        changed.clear()
        # a second server appears in the configuration; nobody asks the host anything
        write_project(ctx.cwd, stdio_entry("a", "tools-only", log),
                      stdio_entry("b", "tools-only", tmp_path / "b.log"))
        assert changed.wait(90)
        _until(lambda: {s.name for s in host.last_status() if s.tools} == {"a", "b"})
        lists = methods(log).count("tools/list")
        time.sleep(1.5)
        assert methods(log).count("tools/list") > lists  # every 0.5 s, while it lives
        started = time.monotonic()
    assert time.monotonic() - started < 30  # close() cancelled the timer (it never ends alone)
