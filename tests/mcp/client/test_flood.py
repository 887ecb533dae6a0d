"""The notification bucket: a server flooding an idle host is rate-limited before parsing
(excess dropped and counted, one warning per flood), requests and responses never held back;
with a real stdio server writing thousands of notifications a second."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.flood import NotificationBucket

pytestmark = pytest.mark.integration  # starts processes or loopback servers

NOTE = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "x"}}).encode()
SERVER = str(Path(__file__).parents[1] / "runtime" / "notify_server.py")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_admits_a_burst_then_its_rate(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    bucket = NotificationBucket("srv", rate=10, burst=5, clock=clock)
    with caplog.at_level(logging.WARNING, logger="lemon_core.mcp.client.flood"):
        assert [bucket.admit(NOTE) for _ in range(8)] == [True] * 5 + [False] * 3
        clock.now = 0.5  # five more tokens
        assert sum(bucket.admit(NOTE) for _ in range(8)) == 5
    assert bucket.dropped == 6 and bucket.floods == 1
    assert len(caplog.records) == 1 and 'MCP server "srv"' in caplog.text
    clock.now = 60.0  # quiet long enough: a new flood is logged again
    assert sum(bucket.admit(NOTE) for _ in range(8)) == 5 and bucket.floods == 2


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}',
    b'{"jsonrpc":"2.0","id":7,"result":{"content":[]}}',
    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
    b'{"jsonrpc": "2.0", "id": 3, "method": "notifications/message"}',
])
def test_requests_responses_and_other_notifications_are_never_held(line: bytes) -> None:
    bucket = NotificationBucket(rate=0, burst=0)
    assert bucket.admit(line) and bucket.dropped == 0


@pytest.mark.parametrize("method", ["notifications/progress", "notifications/message",
                                    "notifications/tools/list_changed",
                                    "notifications/resources/updated"])
def test_the_limited_kinds(method: str) -> None:
    bucket = NotificationBucket(rate=0, burst=0)
    assert not bucket.admit(json.dumps({"jsonrpc": "2.0", "method": method}).encode())


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["message", "list_changed"])
def test_a_real_flood_is_dropped_and_the_host_keeps_answering(
        ctx: LemonContext, kind: str, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mcp")
    from lemon_core.mcp.runtime.host import McpHost
    from tests.mcp.runtime.support import SLOW, write_project

    write_project(ctx.cwd, {"name": "noisy", "type": "stdio", "command": sys.executable,
                            "args": [SERVER], **SLOW})
    with caplog.at_level(logging.WARNING, logger="lemon_core.mcp.client.flood"), \
            McpHost(ctx, ladder_s=(600.0,)) as host:
        names = {t.raw: t.name for t in host.tools()}
        assert host.call(names["flood"], {"kind": kind, "seconds": 2, "rate": 3000}).ok
        deadline = time.monotonic() + 60
        while "done" not in host.call(names["flooding"], {}).result["content"][0]["text"]:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        echo = host.call(names["echo"], {"text": "still here"})
        assert echo.ok and echo.result["content"][0]["text"] == "still here"
        transport = next(iter(host._conns.values())).transport  # the connection's transport
        assert transport.bucket.dropped > 3000  # ~6000 written, ~300 admitted
        assert {s.name: s.connected for s in host.status()} == {"noisy": True}
    warnings = [r for r in caplog.records if "dropping the excess" in r.getMessage()]
    assert len(warnings) == 1


def test_parsed_notifications_take_tokens_and_a_dropped_list_changed_is_reported() -> None:
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCNotification, JSONRPCRequest

    missed: list[int] = []
    bucket = NotificationBucket("web", rate=0.0, burst=2.0, clock=lambda: 0.0,
                                on_missed_change=lambda: missed.append(1))

    def note(method: str) -> SessionMessage:
        return SessionMessage(JSONRPCNotification(jsonrpc="2.0", method=method))

    request = SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=7, method="ping"))
    assert bucket.admit_message(note("notifications/message"))
    assert bucket.admit_message(note("notifications/tools/list_changed"))
    assert not bucket.admit_message(note("notifications/message"))  # no token left
    assert missed == []
    assert not bucket.admit_message(note("notifications/tools/list_changed"))
    assert missed == [1]
    assert bucket.admit_message(request)  # requests and responses always pass
    assert bucket.admit_message(note("notifications/cancelled"))  # not a limited method
    assert bucket.admit_message(ValueError("a transport's error"))
    assert bucket.dropped == 2


def test_a_dropped_list_changed_line_is_reported() -> None:
    missed: list[int] = []
    bucket = NotificationBucket(rate=0.0, burst=0.0, clock=lambda: 0.0,
                                on_missed_change=lambda: missed.append(1))
    assert not bucket.admit(b'{"jsonrpc":"2.0","method":"notifications/message"}')
    assert missed == []
    assert not bucket.admit(b'{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}')
    assert missed == [1]
