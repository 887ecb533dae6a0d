"""Driving a server over stdio with the SDK's real client (the server is a subprocess)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent


@asynccontextmanager
async def connect(command: str, *args: str, env: dict[str, str] | None = None,
                  cwd: str | None = None, errlog: Any = None) -> AsyncIterator[Any]:
    """A connected ``mcp.Client`` (legacy handshake) to ``BIN/command args``."""
    from mcp import Client, StdioServerParameters

    # The SDK passes a server only a safe part of the environment: keep tests' switch that
    # leaves the shipped skills out (tests/conftest.py), unless a test sets its own.
    switch = os.environ.get("LEMON_BUILTIN_SKILLS")
    env = {**({"LEMON_BUILTIN_SKILLS": switch} if switch else {}), **(env or {})}
    params = StdioServerParameters(command=str(BIN / command), args=list(args), env=env,
                                   cwd=cwd)
    transport = None
    if errlog is not None:
        from mcp.client.stdio import stdio_client

        transport = stdio_client(params, errlog=errlog)
    async with Client(transport or params, mode="legacy", read_timeout_seconds=30) as client:
        yield client


def text_of(result: Any) -> str:
    return result.content[0].text
