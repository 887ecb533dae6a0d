"""``lemon mcp serve`` in front of a backend that exits while idle: the client is told (a
``notifications/tools/list_changed``) when the backend's tools leave and when they are back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.gateway.support import gateway
from tests.mcp.runtime.support import write_project
from tests.mcp.runtime.test_idle_exit import idle_entry

pytest.importorskip("mcp")


@pytest.mark.slow
def test_a_backend_dying_while_idle_is_announced_and_comes_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    starts = tmp_path / "starts"
    write_project(project, idle_entry("idle", starts, after_s=3.0))
    notices: list[float] = []
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        nonlocal changed
        if type(message).__name__ == "ToolListChangedNotification":
            notices.append(anyio.current_time())
            changed.set()

    def echo_in(tools: Any) -> bool:
        return any(t.name.startswith("mcp_idle_echo_") for t in tools)

    async def body() -> None:
        nonlocal changed
        async with gateway(project, tmp_path, message_handler=on_message) as client:
            assert echo_in((await client.list_tools()).tools)
            with anyio.fail_after(90):  # the backend exits on its own; nothing was called
                await changed.wait()
            listed = (await client.list_tools()).tools
            if not echo_in(listed):  # listed while it was away: told again when it is back
                changed = anyio.Event()
                with anyio.fail_after(90):
                    await changed.wait()
                listed = (await client.list_tools()).tools
                assert len(notices) == 2
            assert echo_in(listed)
            echo = next(t for t in listed if t.name.startswith("mcp_idle_echo_"))
            result = await client.call_tool(echo.name, {"text": "back"})
            assert not result.is_error

    anyio.run(body)
    assert notices and len(starts.read_text(encoding="utf-8").split()) == 2
