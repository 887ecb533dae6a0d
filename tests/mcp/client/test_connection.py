"""The client against real servers: the SDK's own over Streamable HTTP and SSE on 127.0.0.1,
lazy-skills-mcp over stdio, and servers that fail in each way."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import classify, probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.transports import working_dir
from lemon_core.models import McpServer, ServerSource
from tests.mcp.client.servers import free_port, sdk_server, unauthorized_server
from tests.mcp.servers.lazy_fixtures import skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

SOURCE = ServerSource("lemon", "project")
SLOW = {"timeout_ms": 60_000, "ready_timeout_ms": 60_000}  # the machine may be busy
SECRET = "s3cr3t-value-7"


@pytest.fixture
def ctx(tmp_path: Path) -> LemonContext:
    return LemonContext.from_environment(cwd=tmp_path)


@pytest.mark.parametrize(("transport", "kind"), [("streamable-http", "http"), ("sse", "sse")])
def test_handshake_and_tools_over_http(tmp_path: Path, ctx: LemonContext, transport: str,
                                       kind: str) -> None:
    marker = tmp_path / "called"
    with sdk_server(transport, marker) as url:
        server = McpServer(name="web", transport=kind, source=SOURCE, url=url,
                           headers={"Authorization": f"Bearer {SECRET}"}, **SLOW)
        result = probe(server, ctx)
    assert result.tool_count == 2
    assert sorted(t.name for t in result.tools) == ["echo", "touch"]
    assert result.server_name == "lemon-test-server" and result.server_version == "9.9"
    assert "tools" in result.capabilities
    assert not marker.exists()  # discovery never calls a tool


def test_stdio_lazy_server(tmp_path: Path, ctx: LemonContext) -> None:
    skill(tmp_path / "skills", "one")
    server = McpServer(name="lazy", transport="stdio", source=SOURCE,
                       command=str(Path(sys.executable).parent / "lazy-skills-mcp"),
                       args=("--skills-dir", str(tmp_path / "skills")), **SLOW)
    result = probe(server, ctx)
    assert [t.name for t in result.tools] == ["find_skills", "load_skill"]


def _fails(server: McpServer, ctx: LemonContext) -> McpConnectionError:
    with pytest.raises(McpConnectionError) as info:
        probe(server, ctx)
    text = str(info.value)
    assert SECRET not in text
    for value in (server.url, server.command, *server.args):
        if value:
            assert value not in text
    return info.value


def test_a_command_that_cannot_start(ctx: LemonContext, tmp_path: Path) -> None:
    server = McpServer(name="gone", transport="stdio", source=SOURCE,
                       command=str(tmp_path / "no-such-program"), args=(f"--token={SECRET}",),
                       env={"API_KEY": SECRET})
    error = _fails(server, ctx)
    assert error.kind == "spawn_failed"
    assert str(error).startswith('server "gone" (stdio): handshake failed:')


def test_a_server_that_exits_at_once(ctx: LemonContext) -> None:
    server = McpServer(name="quits", transport="stdio", source=SOURCE, command=sys.executable,
                       args=("-c", f"print('{SECRET}'); raise SystemExit(3)"), **SLOW)
    assert _fails(server, ctx).kind in ("closed", "protocol")


@pytest.mark.parametrize("kind", ["http", "sse"])
def test_nothing_listening(ctx: LemonContext, kind: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp?token={SECRET}"
    server = McpServer(name="off", transport=kind, source=SOURCE, url=url,
                       headers={"X-Key": SECRET})
    assert _fails(server, ctx).kind == "connect_failed"


@pytest.mark.parametrize("kind", ["http", "sse"])
def test_http_401_is_reported_by_status(ctx: LemonContext, kind: str) -> None:
    with unauthorized_server() as url:
        server = McpServer(name="locked", transport=kind, source=SOURCE, url=url,
                           headers={"Authorization": f"Bearer {SECRET}"})
        error = _fails(server, ctx)
    assert (error.kind, error.status) == ("http_status", 401)
    assert "HTTP 401" in str(error)


@pytest.mark.slow
def test_a_server_that_never_answers_times_out(ctx: LemonContext) -> None:
    server = McpServer(name="mute", transport="stdio", source=SOURCE, command=sys.executable,
                       args=("-c", "import time; time.sleep(60)"), timeout_ms=300,
                       ready_timeout_ms=300)
    assert _fails(server, ctx).kind == "timeout"


def test_classify_never_keeps_the_original_text() -> None:
    server = McpServer(name="x", transport="http", source=SOURCE, url="http://h.example/")
    error = classify(ValueError(f"bad {SECRET}"), server, "handshake")
    assert SECRET not in str(error)
    group_type = __import__("builtins").__dict__.get("ExceptionGroup")
    if group_type is None:
        pytest.skip("exception groups need Python 3.11")
    group = group_type("g", [RuntimeError(SECRET), ConnectionRefusedError(SECRET)])
    assert classify(group, server, "handshake").kind == "connect_failed"


def test_working_dir_defaults_to_the_project(tmp_path: Path, ctx: LemonContext) -> None:
    bare = McpServer(name="x", transport="stdio", source=SOURCE, command="x")
    assert working_dir(bare, ctx) == str(tmp_path)
    relative = McpServer(name="x", transport="stdio", source=SOURCE, command="x", cwd="sub")
    assert working_dir(relative, ctx) == str(tmp_path / "sub")


def test_without_the_sdk_the_failure_says_how_to_install_it(ctx: LemonContext,
                                                            monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    server = McpServer(name="x", transport="stdio", source=SOURCE, command="x")
    with pytest.raises(McpConnectionError) as info:
        probe(server, ctx)
    assert info.value.kind == "sdk_missing" and "lemon-core[mcp]" in str(info.value)
