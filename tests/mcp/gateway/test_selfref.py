"""Recognising an entry that runs ``lemon mcp serve`` (the gateway never serves itself)."""

from __future__ import annotations

from lemon_core.mcp.gateway.selfref import SELF_REASON, runs_gateway, self_reason
from lemon_core.models import McpServer, ServerSource

SRC = ServerSource("cursor", "project", "/p/.cursor/mcp.json")


def entry(command: str | None, *args: str, transport: str = "stdio") -> McpServer:
    return McpServer("x", transport, SRC, command=command, args=args,  # type: ignore[arg-type]
                     url="http://127.0.0.1:1/mcp" if transport != "stdio" else None)


def test_the_gateway_in_every_spelling_is_recognised() -> None:
    assert runs_gateway(entry("lemon", "mcp", "serve"))
    assert runs_gateway(entry("/home/u/.venv/bin/lemon", "mcp", "serve", "--skills"))
    assert runs_gateway(entry("uvx", "--from", "lemon-core", "lemon", "mcp", "serve"))
    assert runs_gateway(entry("C:\\tools\\LEMON.EXE", "mcp", "serve"))
    assert self_reason(entry("lemon", "mcp", "serve")) == SELF_REASON


def test_other_commands_are_not() -> None:
    assert not runs_gateway(entry("lemon", "skill", "serve"))
    assert not runs_gateway(entry("lemon", "mcp", "tools"))
    assert not runs_gateway(entry("npx", "-y", "lemon-mcp", "serve"))
    assert not runs_gateway(entry("lemonade", "mcp", "serve"))
    assert not runs_gateway(entry(None, transport="http"))
    assert self_reason(entry("npx", "server")) is None


def test_the_reason_never_repeats_the_command() -> None:
    assert "/home/u" not in SELF_REASON and "lemon mcp serve" in SELF_REASON
