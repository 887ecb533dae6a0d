"""Driving ``lemon mcp serve`` (a subprocess) with the SDK's real client over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.mcp.servers.stdio import BIN


def serve_env(tmp_path: Path) -> dict[str, str]:
    """An isolated environment for the gateway (the SDK passes a server only a safe part of
    the caller's own)."""
    return {"HOME": str(tmp_path / "home"), "LEMON_AGENT_DIR": str(tmp_path / "agent"),
            "LEMON_CACHE_DIR": str(tmp_path / "cache"), "LEMON_BUILTIN_SKILLS": "0"}


@asynccontextmanager
async def gateway(project: Path, tmp_path: Path, *extra: str, errlog: Any = None,
                  mode: str = "legacy", **client: Any) -> AsyncIterator[Any]:
    """A connected ``mcp.Client`` to ``lemon mcp serve --cwd project``: the handshake era
    (``mode="legacy"``), or ``"auto"`` (the SDK's default: 2026-07-28 after
    ``server/discover``); ``client`` passes callbacks (``elicitation_callback``,
    ``message_handler``)."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(BIN / "lemon"),
                                   args=["mcp", "serve", "--cwd", str(project), *extra],
                                   env=serve_env(tmp_path), cwd=str(project))
    with (tmp_path / "serve.err").open("a", encoding="utf-8") as sink:
        transport = stdio_client(params, errlog=errlog or sink)
        async with Client(transport, mode=mode, read_timeout_seconds=90,
                          **client) as session:
            yield session


def stderr_of(tmp_path: Path) -> str:
    path = tmp_path / "serve.err"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def lemon_entry(command: str | None = None) -> dict[str, Any]:
    """An entry that runs the gateway itself."""
    return {"name": "lemon", "type": "stdio", "command": command or str(BIN / "lemon"),
            "args": ["mcp", "serve"]}


PYTHON = sys.executable
