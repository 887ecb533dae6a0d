"""The tool host and HTTP servers (Streamable HTTP and SSE) on 127.0.0.1, real SDK servers in
a subprocess: a server that vanishes while idle is noticed by the heartbeat and reconnected
when it is back; a flood of ``list_changed`` notifications costs a few refreshes, and the last
change is still seen; a flood of log messages is rate-limited before the session dispatches
it."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.client.servers import _wait_for, free_port, stop
from tests.mcp.runtime.support import SLOW, wait_until, write_project

pytest.importorskip("mcp")

SERVER = str(Path(__file__).parent / "http_notify_server.py")
PATHS = {"streamable-http": "/mcp", "sse": "/sse"}
TYPES = {"streamable-http": "http", "sse": "sse"}


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


@contextmanager
def serving(transport: str, port: int, lists: Path) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, SERVER, transport, str(port), str(lists)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc)
        yield proc
    finally:
        stop(proc)


def entry(transport: str, port: int) -> dict[str, object]:
    return {"name": "web", "type": TYPES[transport],
            "url": f"http://127.0.0.1:{port}{PATHS[transport]}", **SLOW, "timeout_ms": 5_000}


def lists_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split()) if path.exists() else 0


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_an_http_server_gone_while_idle_is_noticed_and_reconnected(
        ctx: LemonContext, tmp_path: Path, transport: str) -> None:
    port, lists = free_port(), tmp_path / "lists"
    write_project(ctx.cwd, entry(transport, port))
    with McpHost(ctx, heartbeat_s=0.3, ladder_s=(0.5, 1.0, 1.0, 1.0, 1.0, 1.0)) as host:
        with serving(transport, port, lists):
            names = {t.raw: t.name for t in host.tools()}
            assert host.last_status()[0].connected
        # the server is gone and nobody calls: the heartbeat notices
        wait_until(lambda: not host.last_status()[0].connected, 30)
        state = host.last_status()[0]
        assert state.error_kind is not None and state.last_error
        assert "RUNTIME" not in str(state.to_json())
        with serving(transport, port, lists):
            wait_until(lambda: host.last_status()[0].connected
                       and host.last_status()[0].tools > 0, 60)
            assert host.call(names["echo"], {"text": "back"}).ok
            assert host.last_status()[0].restarts >= 1


def test_no_heartbeat_means_an_idle_http_server_is_not_pinged(
        ctx: LemonContext, tmp_path: Path) -> None:
    port, lists = free_port(), tmp_path / "lists"
    write_project(ctx.cwd, entry("streamable-http", port))
    with McpHost(ctx, heartbeat_s=None, ladder_s=(600.0,)) as host:
        with serving("streamable-http", port, lists):
            host.tools()
        time.sleep(1.5)
        assert host.last_status()[0].connected  # nobody asked: the loss is not seen yet


def test_a_list_changed_flood_costs_a_few_refreshes_and_the_last_one_is_seen(
        ctx: LemonContext, tmp_path: Path) -> None:
    port, lists = free_port(), tmp_path / "lists"
    write_project(ctx.cwd, entry("streamable-http", port))
    changes: list[int] = []
    with serving("streamable-http", port, lists), \
            McpHost(ctx, on_change=lambda: changes.append(1)) as host:
        names = {t.raw: t.name for t in host.tools()}
        before = lists_of(lists)
        result = host.call(names["changes"], {"count": 400})
        assert result.ok, result
        refreshes = host._changes.refreshes  # the count under test
        wait_until(lambda: lists_of(lists) > before, 30)  # the change was acted on
        time.sleep(1.5)  # any refresh still waiting has run
        asked = lists_of(lists) - before
        assert 1 <= asked <= 8, asked  # not 400
        assert sum(refreshes.values()) == asked
        assert host.call(names["echo"], {"text": "still"}).ok


def test_a_log_flood_over_http_is_rate_limited_before_dispatch(
        ctx: LemonContext, tmp_path: Path) -> None:
    port, lists = free_port(), tmp_path / "lists"
    write_project(ctx.cwd, entry("streamable-http", port))
    with serving("streamable-http", port, lists), McpHost(ctx) as host:
        names = {t.raw: t.name for t in host.tools()}
        assert host.call(names["logs"], {"count": 1500}).ok
        bucket = host._conns[next(iter(host._conns))].transport.bucket
        assert bucket.dropped > 0 and bucket.floods == 1
