"""Helpers of the OAuth tests: entries as the schema parses them, the cache files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.mcp.schema import parse_entry
from lemon_core.models import McpServer, ServerSource
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET
from tests.mcp.client.oauth.conftest import Rig

SOURCE = ServerSource("lemon", "project", "/p/.lemon/mcp.json")


def server(rig: Rig, name: str = "api", **oauth: Any) -> McpServer:
    return parse_entry(rig.entry(name, **oauth), label="servers[0]", source=SOURCE)


def credentials(rig: Rig, name: str = "api", **more: Any) -> McpServer:
    return server(rig, name, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                  token_auth_method=rig.auth.auth_method, **more)


def cache_files(ctx: LemonContext) -> list[Path]:
    folder = ctx.agent_dir / "mcp-oauth"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def read_cache(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def expire_cached(ctx: LemonContext, rig: Rig) -> None:
    """Make every cached access token expired, for the client (the stored expiry) and for the
    authorization server."""
    rig.auth.expire_access()
    for path in cache_files(ctx):
        record = read_cache(path)
        record["expires_at"] = 1.0  # long past (0 would read as "no expiry")
        path.write_text(json.dumps(record), encoding="utf-8")
        os.chmod(path, 0o600)
