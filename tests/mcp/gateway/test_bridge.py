"""The gateway in process (the SDK's client over its in-memory transport, real stdio backends):
the periodic rediscovery finds a changed configuration and tells the client, once."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.gateway.bridge import Gateway
from lemon_core.mcp.gateway.server import build_server
from tests.mcp.runtime.support import stdio_entry, write_project

pytest.importorskip("mcp")


def test_a_changed_configuration_reaches_the_client_as_list_changed(
        make_ctx: Callable[..., LemonContext], tmp_path: Path) -> None:
    from mcp import Client

    ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))
    beta = stdio_entry("beta", "tools-only", tmp_path / "b.log")
    config = write_project(ctx.cwd, beta)
    gateway = Gateway(ctx, refresh_s=0.5)
    server = build_server(gateway, version="test")
    changes: list[str] = []
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if type(message).__name__ == "ToolListChangedNotification":
            changes.append("tools")
            changed.set()

    async def body() -> tuple[list[str], list[str]]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(gateway.run)
            async with Client(server, mode="legacy", message_handler=on_message) as client:
                before = [t.name for t in (await client.list_tools()).tools]
                await anyio.sleep(1.5)  # rediscoveries of an unchanged file: no notice
                assert changes == []
                gamma = stdio_entry("gamma", "tools-only", tmp_path / "g.log")
                config.write_text(json.dumps({"servers": [beta, gamma]}), encoding="utf-8")
                with anyio.fail_after(60):
                    await changed.wait()
                await anyio.sleep(1.5)  # further rediscoveries: still one notice
                after = [t.name for t in (await client.list_tools()).tools]
            tg.cancel_scope.cancel()
        return before, after

    try:
        before, after = anyio.run(body)
    finally:
        gateway.close()
    assert changes == ["tools"]
    assert [n.split("_")[1] for n in before] == ["beta"]
    assert sorted(n.split("_")[1] for n in after) == ["beta", "gamma"]
