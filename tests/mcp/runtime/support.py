"""Helpers of the runtime tests: project files naming the test servers."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVER = str(Path(__file__).parent / "stdio_server.py")
SECRET = "RUNTIME-SECRET-9191"
SLOW = {"timeout_ms": 60_000, "ready_timeout_ms": 60_000}  # the machine may be busy


def stdio_entry(name: str, mode: str, log: Path, marker: Path | None = None,
                **extra: Any) -> dict[str, Any]:
    args = [SERVER, mode, str(log)] + ([str(marker)] if marker else [])
    return {"name": name, "type": "stdio", "command": sys.executable, "args": args,
            "env": {"API_KEY": SECRET}, **SLOW, **extra}


def write_project(project: Path, *servers: dict[str, Any], trusted: bool = True) -> Path:
    """Write ``.lemon/mcp.json`` with ``servers`` and, unless ``trusted`` is false, record
    them as trusted (the user's ``lemon mcp trust``) in the test's agent folder."""
    from tests.helpers import trust_project

    if trusted and servers:  # first: a running host never sees them untrusted
        trust_project(project, servers=servers)
    path = project / ".lemon" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"servers": list(servers)}), encoding="utf-8")
    return path


def methods(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").split() if log.exists() else []


def wait_until(check: Callable[[], bool], seconds: float = 90.0, pause: float = 0.05) -> None:
    """Poll ``check`` until it holds; fail the test after ``seconds``."""
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out waiting"
        time.sleep(pause)
