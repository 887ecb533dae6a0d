"""The gateway in process (the SDK's client over its in-memory transport, real stdio backends):
the periodic rediscovery finds a changed configuration and tells the client, once: as a
notification on the handshake protocols, on a ``subscriptions/listen`` stream on 2026-07-28."""

from __future__ import annotations

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


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_changed_configuration_reaches_the_client_as_list_changed(
        make_ctx: Callable[..., LemonContext], tmp_path: Path, mode: str) -> None:
    from mcp import Client

    ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))
    beta = stdio_entry("beta", "tools-only", tmp_path / "b.log")
    write_project(ctx.cwd, beta)
    gateway = Gateway(ctx, refresh_s=0.5)
    server = build_server(gateway, version="test")
    changes: list[str] = []  # notifications the client's message handler saw
    events: list[str] = []  # events of its listen stream (2026-07-28; teed to the handler too)
    changed = anyio.Event()
    subscribed = anyio.Event()

    async def on_message(message: Any) -> None:
        if type(message).__name__ == "ToolListChangedNotification":
            changes.append("tools")
            changed.set()

    async def listen(client: Any) -> None:
        async with client.listen(tools_list_changed=True) as subscription:
            subscribed.set()
            async for event in subscription:
                events.append(type(event).__name__)

    async def body() -> tuple[list[str], list[str]]:
        async with anyio.create_task_group() as tg:
            tg.start_soon(gateway.run)
            async with Client(server, mode=mode, message_handler=on_message) as client, \
                    anyio.create_task_group() as listening:
                if mode != "legacy":
                    listening.start_soon(listen, client)
                    with anyio.fail_after(30):
                        await subscribed.wait()
                before = [t.name for t in (await client.list_tools()).tools]
                await anyio.sleep(1.5)  # rediscoveries of an unchanged file: no notice
                assert changes == [] and events == []
                gamma = stdio_entry("gamma", "tools-only", tmp_path / "g.log")
                write_project(ctx.cwd, beta, gamma)  # the user's edit (trusted)
                with anyio.fail_after(60):
                    await changed.wait()
                await anyio.sleep(1.5)  # further rediscoveries: still one notice
                after = [t.name for t in (await client.list_tools()).tools]
                listening.cancel_scope.cancel()
            tg.cancel_scope.cancel()
        return before, after

    try:
        before, after = anyio.run(body)
    finally:
        gateway.close()
    assert changes == ["tools"]
    assert events == ([] if mode == "legacy" else ["ToolsListChanged"])
    assert [n.split("_")[1] for n in before] == ["beta"]
    assert sorted(n.split("_")[1] for n in after) == ["beta", "gamma"]
