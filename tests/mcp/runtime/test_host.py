"""The tool host against real stdio SDK servers started by the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import SECRET, methods, stdio_entry, write_project

pytest.importorskip("mcp")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


@pytest.mark.slow
def test_shared_names_filters_and_capabilities(ctx: LemonContext, tmp_path: Path) -> None:
    full_log, only_log = tmp_path / "full.log", tmp_path / "only.log"
    write_project(ctx.cwd, stdio_entry("alpha", "full", full_log,
                                       block_tools=["hang", "crash", "grow"],
                                       allow_resources=["note://one"]),
                  stdio_entry("beta", "tools-only", only_log))
    with McpHost(ctx) as host:
        tools = host.tools()
        by_server: dict[str, set[str]] = {}
        for tool in tools:
            by_server.setdefault(tool.server, set()).add(tool.raw)
        assert by_server["alpha"] == {"read_file", "touch", "resources_list", "resource_read",
                                      "prompts_list", "prompt_get"}  # hang is blocked
        assert by_server["beta"] == {"read_file"}
        names = [t.name for t in tools]
        assert len(set(names)) == len(names)
        assert all(len(n) <= 64 and n.isascii() for n in names)
        a_read = next(t for t in tools if t.server == "alpha" and t.raw == "read_file")
        b_read = next(t for t in tools if t.server == "beta")
        assert host.call(a_read.name, {"path": "x"}).result["content"][0]["text"] == "full:x"
        assert host.call(b_read.name, {"path": "y"}).result["content"][0]["text"] == "only:y"
        listed = host.call(next(t.name for t in tools if t.raw == "resources_list"))
        assert [r["uri"] for r in listed.result["resources"]] == ["note://one"]
        read = next(t.name for t in tools if t.raw == "resource_read")
        assert host.call(read, {"uri": "note://two"}).error_kind == "blocked"
        status = {s.name: s for s in host.status()}
    assert status["alpha"].connected and status["alpha"].resources == 1
    assert status["beta"].capabilities == ("tools",)
    seen = methods(only_log)
    assert "tools/list" in seen and "tools/call" in seen
    assert not [m for m in seen if m.startswith(("resources/", "prompts/"))]
    assert "resources/list" in methods(full_log)


@pytest.mark.slow
def test_a_down_server_is_skipped_with_a_redacted_reason(ctx: LemonContext,
                                                         tmp_path: Path) -> None:
    write_project(ctx.cwd, stdio_entry("ok", "tools-only", tmp_path / "ok.log"),
                  {"name": "gone", "type": "stdio", "command": str(tmp_path / SECRET),
                   "args": [SECRET]})
    with McpHost(ctx) as host:
        assert {t.server for t in host.tools()} == {"ok"}
        status = {s.name: s for s in host.status()}
    assert not status["gone"].connected and status["gone"].error_kind == "spawn_failed"
    assert SECRET not in str(status["gone"].to_json())


@pytest.mark.slow
def test_a_hanging_call_times_out_and_is_not_replayed(ctx: LemonContext,
                                                      tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    entry = stdio_entry("slow", "full", tmp_path / "slow.log", marker)
    entry["timeout_ms"] = 8000  # the handshake shares it; the machine may be busy
    write_project(ctx.cwd, entry)
    with McpHost(ctx) as host:
        hang = next((t.name for t in host.tools() if t.raw == "hang"), host.status())
        result = host.call(hang)
        assert not result.ok and result.error_kind == "timeout"
        assert "may still have taken effect" in (result.error or "")
    assert marker.read_text().split() == ["hang"]  # called once, never replayed


@pytest.mark.slow
def test_a_removed_server_retires_and_its_names_fail(ctx: LemonContext,
                                                     tmp_path: Path) -> None:
    log = tmp_path / "one.log"
    write_project(ctx.cwd, stdio_entry("one", "tools-only", log))
    with McpHost(ctx) as host:
        old = host.tools()[0].name
        assert host.call(old, {"path": "a"}).ok
        # replaced: same name, another configuration
        write_project(ctx.cwd, stdio_entry("one", "tools-only", log, cwd=str(tmp_path)))
        new = host.tools(refresh=True)[0].name
        assert new != old
        with pytest.raises(NotFoundError):
            host.call(old, {"path": "a"})
        write_project(ctx.cwd)
        assert host.tools(refresh=True) == ()
        with pytest.raises(NotFoundError):
            host.call(new, {"path": "a"})


@pytest.mark.slow
def test_approval_is_asked_once_and_never_silently(ctx: LemonContext,
                                                   tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    write_project(ctx.cwd, stdio_entry("git", "full", tmp_path / "git.log", marker,
                                       approval="always",
                                       tool_approvals={"read_file": "never",
                                                       "resources/list": "never"}))
    asked: list[str] = []
    with McpHost(ctx) as host:
        tools = {t.raw: t for t in host.tools()}
        assert not tools["read_file"].approval and not tools["resources_list"].approval
        assert tools["touch"].approval and tools["prompts_list"].approval
        with pytest.raises(ApprovalRefused):
            host.call(tools["touch"].name)
        assert not marker.exists()
        with pytest.raises(ApprovalRefused):
            host.call(tools["touch"].name, approver=lambda r: asked.append(r.target) or False)
        assert host.call(tools["touch"].name,
                         approver=lambda r: asked.append(r.target) or True).ok
        assert asked == ["touch", "touch"]
        host.policy = lambda tool: True  # the caller's policy ORs in
        with pytest.raises(ApprovalRefused):
            host.call(tools["read_file"].name, {"path": "p"})
    assert marker.read_text().split() == ["called"]


def test_disabled_means_no_connection(make_ctx: Callable[..., LemonContext],
                                      tmp_path: Path) -> None:
    ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"), LEMON_MCP_DISABLED="1")
    log = tmp_path / "x.log"
    write_project(ctx.cwd, stdio_entry("x", "tools-only", log))
    with McpHost(ctx) as host:
        assert host.tools() == () and host.status() == ()
    assert not log.exists()


def test_warm_inventory_is_reused(ctx: LemonContext, tmp_path: Path) -> None:
    log = tmp_path / "w.log"
    write_project(ctx.cwd, stdio_entry("w", "tools-only", log))
    with McpHost(ctx) as host:
        first = host.tools()
        assert host.tools() == first
    assert methods(log).count("tools/list") == 1


@pytest.mark.slow
def test_sse_and_a_call_never_holds_the_discovery_lock(ctx: LemonContext,
                                                       tmp_path: Path) -> None:
    import threading

    from tests.mcp.client.servers import sdk_server

    marker = tmp_path / "slow-marker"
    entry = stdio_entry("slow", "full", tmp_path / "slow.log", marker)
    entry["timeout_ms"] = 12_000
    with sdk_server("sse", tmp_path / "sse-marker") as url:
        write_project(ctx.cwd, entry, {"name": "legacy", "type": "sse", "url": url,
                                       "headers": {"X-Key": SECRET},
                                       "timeout_ms": 60_000, "ready_timeout_ms": 60_000})
        with McpHost(ctx) as host:
            tools = {(t.server, t.raw): t.name for t in host.tools()}
            echo = host.call(tools[("legacy", "echo")], {"text": "over sse"})
            assert echo.result["content"][0]["text"] == "over sse"
            hanging = threading.Thread(target=host.call, args=(tools[("slow", "hang")],))
            hanging.start()
            while not marker.exists():
                hanging.join(0.05)
            started = time.monotonic()
            assert host.tools(refresh=True)  # discovery runs while the call is in flight
            assert hanging.is_alive() and time.monotonic() - started < 10
            hanging.join()


@pytest.mark.slow
def test_on_the_callers_loop_calls_run_inline_and_approvals_in_a_thread(
        ctx: LemonContext, tmp_path: Path) -> None:
    import threading

    import anyio

    marker = tmp_path / "marker"
    write_project(ctx.cwd, stdio_entry("git", "full", tmp_path / "git.log", marker,
                                       tool_approvals={"touch": "always"},
                                       block_tools=["hang", "crash", "grow"]))
    loop_thread: list[Any] = []

    def approver(request: Any) -> bool:  # a plain function, asked off the loop
        loop_thread.append(threading.get_ident())
        return request.target == "touch"

    async def body() -> None:
        host = McpHost(ctx, approver=approver)
        async with host.on_current_loop():
            tools = {t.raw: t for t in await host.atools()}
            read = await host.acall(tools["read_file"].name, {"path": "x"})
            assert read.result["content"][0]["text"] == "full:x"
            assert (await host.acall(tools["touch"].name)).ok
            with pytest.raises(NotFoundError):
                await host.acall("mcp_nothing_0123456789abcdef")
            # the synchronous API still works from a worker thread (it waits on this loop)
            names = await anyio.to_thread.run_sync(lambda: [t.name for t in host.tools()])
            assert sorted(names) == sorted(t.name for t in tools.values())
            assert [s.name for s in host.last_status()] == ["git"]
            await anyio.to_thread.run_sync(host.close)  # ends the connections, not the block
            with anyio.fail_after(20):
                while any(s.connected for s in host.last_status()):
                    await anyio.sleep(0.05)
        assert loop_thread and loop_thread[0] != threading.get_ident()
        host.close()  # nothing left to close: a no-op

    anyio.run(body)
    assert marker.read_text().split() == ["called"]


@pytest.mark.slow
def test_untrusted_project_servers_are_never_started(ctx: LemonContext, tmp_path: Path) -> None:
    yes_log, no_log = tmp_path / "yes.log", tmp_path / "no.log"
    write_project(ctx.cwd, stdio_entry("yes", "tools-only", yes_log),
                  stdio_entry("no", "tools-only", no_log), trusted=False)
    with McpHost(ctx) as host:  # the default policy: the trust store, empty here
        assert host.tools() == () and [s.name for s in host.untrusted] == ["yes", "no"]
    asked: list[tuple[Path, str]] = []

    def policy(project: Path, server: Any) -> bool:  # an embedder's own rule
        asked.append((project, server.name))
        return bool(server.name == "yes")

    with McpHost(ctx, trust=policy) as host:
        assert {t.server for t in host.tools()} == {"yes"}
        assert [s.name for s in host.untrusted] == ["no"]
        assert "no" not in {s.name for s in host.status()}
    assert ("yes" in {n for _, n in asked}) and all(p == ctx.cwd for p, _ in asked)
    assert methods(yes_log) and not no_log.exists()
