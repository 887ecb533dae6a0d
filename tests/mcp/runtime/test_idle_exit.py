"""A server that dies while no request runs is noticed at once and restarted: real stdio
servers (the SDK's ``MCPServer``) that exit on their own while idle."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.runtime.support import SECRET, SLOW, wait_until, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

IDLE = str(Path(__file__).parent / "idle_exit_server.py")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def idle_entry(name: str, starts: Path, *, exits: int = 1, after_s: float = 1.0,
               code: int = 3) -> dict[str, object]:
    return {"name": name, "type": "stdio", "command": sys.executable,
            "args": [IDLE, str(starts), str(exits), str(after_s), str(code)],
            "env": {"API_KEY": SECRET}, **SLOW}


def _until(check: Callable[[], bool], seconds: float = 90.0) -> None:
    wait_until(check, seconds, pause=0.02)


def _starts(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split()) if path.exists() else 0


@pytest.mark.slow
@pytest.mark.parametrize("code", [3, -4], ids=["stdout-closes", "child-holds-stdout"])
def test_a_server_exiting_while_idle_is_restarted(ctx: LemonContext, tmp_path: Path,
                                                  code: int) -> None:
    starts = tmp_path / "starts"
    write_project(ctx.cwd, idle_entry("idle", starts, code=code))
    changes: list[int] = []
    with McpHost(ctx, ladder_s=(0.5, 1.0, 2.0, 4.0),
                 on_change=lambda: changes.append(1)) as host:
        names = {t.raw: t.name for t in host.tools()}
        assert "echo" in names and _starts(starts) == 1
        seen: list[object] = []

        def reconnecting() -> bool:
            state = host.last_status()[0]
            if state.reconnecting:
                seen.append(state)
            return state.reconnecting

        _until(reconnecting)  # no request was sent: the watch noticed the exit by itself
        state = seen[0]
        assert not state.connected and state.error_kind == "exited"  # type: ignore[attr-defined]
        status = abs(code)
        assert state.last_error == ('server "idle" (stdio): the server exited while no request '  # type: ignore[attr-defined]
                                    f"was running (exit status {status})")
        assert state.to_json()["reconnecting"] is True  # type: ignore[attr-defined]
        assert host.tools() == ()  # its tools left while it reconnects
        _until(lambda: host.last_status()[0].tools > 0)
        back = host.last_status()[0]
        assert back.connected and not back.reconnecting and back.last_error is None
        assert back.restarts == 1 and _starts(starts) == 2
        assert {t.raw: t.name for t in host.tools()} == names  # the same names
        result = host.call(names["echo"], {"text": "hi"})
        assert result.ok and SECRET not in str(host.last_status()[0].to_json())
    assert len(changes) >= 2  # the tools left, and came back


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != b"Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_what_a_server_started_does_not_outlive_it(ctx: LemonContext, tmp_path: Path) -> None:
    # the server exits while idle and leaves a child (sleep 60) in its process group: the
    # reconnect ends that child, and closing the host ends the second start's
    starts = tmp_path / "starts"
    children = Path(f"{starts}.children")
    write_project(ctx.cwd, idle_entry("leaver", starts, exits=1, code=-4))
    with McpHost(ctx, ladder_s=(0.5, 1.0)) as host:
        assert host.tools()
        _until(lambda: _starts(starts) == 2 and host.last_status()[0].tools > 0)
        first = int(children.read_text(encoding="utf-8").split()[0])
        _until(lambda: not _running(first), seconds=10)
        second = int(children.read_text(encoding="utf-8").split()[1])
        assert _running(second)
    _until(lambda: not _running(second), seconds=10)


@pytest.mark.slow
def test_a_server_that_keeps_exiting_trips_the_breaker(ctx: LemonContext,
                                                       tmp_path: Path) -> None:
    # each restart answers (the ladder starts again), so the breaker ends it: the sixth
    # crash within 30 s
    starts = tmp_path / "starts"
    write_project(ctx.cwd, idle_entry("flaky", starts, exits=99, after_s=0.2))
    with McpHost(ctx, ladder_s=(0.05, 0.05)) as host:
        host.tools()
        _until(lambda: host.last_status()[0].error_kind == "unavailable")
        state = host.last_status()[0]
        assert not state.reconnecting and state.restarts == 5 and _starts(starts) == 6


@pytest.mark.slow
def test_closing_the_host_is_not_a_crash(ctx: LemonContext, tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    write_project(ctx.cwd, idle_entry("calm", starts, exits=0))
    with McpHost(ctx, ladder_s=(0.05,)) as host:
        assert host.tools()
        assert not host.last_status()[0].reconnecting
    time.sleep(0.5)
    assert _starts(starts) == 1  # the host's own close restarted nothing


@pytest.mark.slow
def test_a_legacy_sse_stream_that_ends_is_noticed(ctx: LemonContext, tmp_path: Path) -> None:
    import subprocess

    from tests.mcp.client.servers import HERE, _wait_for, free_port, stop

    port = free_port()

    def start() -> subprocess.Popen[bytes]:
        proc = subprocess.Popen([sys.executable, str(HERE / "sdk_server.py"), "sse", str(port),
                                 str(tmp_path / "marker")], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        _wait_for(port, proc)
        return proc

    url = f"http://127.0.0.1:{port}/sse"
    write_project(ctx.cwd, {"name": "old", "type": "sse", "url": url,
                            "headers": {"Authorization": f"Bearer {SECRET}"}, **SLOW})
    proc = start()
    try:
        with McpHost(ctx, ladder_s=(0.5, 1.0, 2.0, 4.0, 8.0, 16.0)) as host:
            assert host.tools()
            proc.kill()  # the event stream ends; nothing was asked of the server
            proc.wait()
            _until(lambda: host.last_status()[0].reconnecting, 30)
            state = host.last_status()[0]
            assert state.error_kind == "closed" and not state.connected
            assert "while no request was running" in (state.last_error or "")
            assert SECRET not in str(state.to_json()) and url not in str(state.to_json())
            proc = start()
            _until(lambda: host.last_status()[0].tools > 0)
            assert host.last_status()[0].restarts >= 1
    finally:
        stop(proc)
