"""Shared test data for lemon's MCP files: planted secrets, file helpers and fixtures.

The fixtures (``ctx``, ``project_file``, ``global_file``) live here, not in ``conftest.py``
(which the importer tests own); test modules import them by name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext

#: Values planted in configurations; only ``--reveal`` output may show them.
SECRETS = (
    "sk-ENV-SECRET-1111",
    "HEADER-SECRET-2222",
    "OAUTH-SECRET-3333",
    "URL-SECRET-4444",
    "CMD-SECRET-5555",
    "ARG-SECRET-6666",
)
ENV_SECRET, HEADER_SECRET, OAUTH_SECRET, URL_SECRET, CMD_SECRET, ARG_SECRET = SECRETS


def secret_servers() -> list[dict[str, Any]]:
    """One entry of each transport, each carrying secrets in every credential field."""
    return [
        {"name": "local", "type": "stdio", "command": f"/bin/{CMD_SECRET}",
         "args": ["--token", ARG_SECRET], "env": {"API_KEY": ENV_SECRET},
         "tool_approvals": {"danger": "always"}, "x-extension": ENV_SECRET},
        {"name": "remote", "type": "http", "url": f"https://example.com/mcp?k={URL_SECRET}",
         "headers": {"Authorization": f"Bearer {HEADER_SECRET}"},
         "oauth": {"client_id": "cid", "client_secret": OAUTH_SECRET}},
        {"name": "legacy", "type": "sse", "url": f"https://{URL_SECRET}.example.com/sse",
         "headers": {"X-Key": HEADER_SECRET}},
    ]  # fmt: skip


def assert_no_secrets(*texts: str, secrets: Iterable[str] = SECRETS) -> None:
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"secret {secret!r} leaked"


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    """A context whose agent dir is ``tmp_path/agent`` and cwd the fixture project."""
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


@pytest.fixture
def project_file(ctx: LemonContext) -> Path:
    return ctx.cwd / ".lemon" / "mcp.json"


@pytest.fixture
def global_file(ctx: LemonContext) -> Path:
    return ctx.agent_dir / "mcp.json"
