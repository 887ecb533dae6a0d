"""The application configuration given in code: servers beside LEMON_MCP_SERVERS, and the
discovery switches where the environment leaves them unset."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.mcp.appconfig import McpAppConfig
from lemon_core.mcp.effective import effective_servers
from lemon_core.mcp.trust.identity import needs_trust

SECRET = "APPCONFIG-SECRET-7"


def _entry(name: str, command: str) -> dict[str, object]:
    return {"name": name, "type": "stdio", "command": command}


def _write(path: Path, servers: list[dict[str, object]], key: str = "servers") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data: object = servers
    if key == "mcpServers":  # Cursor's shape: a map of names to entries
        data = {s["name"]: {"command": s["command"]} for s in servers}
    path.write_text(json.dumps({key: data}), encoding="utf-8")


def test_precedence_project_global_env_app_imported(
        make_ctx: Callable[..., LemonContext], tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    ctx = make_ctx(LEMON_AGENT_DIR=str(agent), LEMON_MCP_SERVERS=json.dumps(
        [_entry("both", "from-env"), _entry("env-only", "e")]))
    _write(ctx.cwd / ".lemon" / "mcp.json", [_entry("proj", "from-project")])
    _write(agent / "mcp.json", [_entry("glob", "from-global")])
    _write(ctx.cwd / ".cursor" / "mcp.json", [_entry("app-only", "from-cursor"),
                                             _entry("cur", "c")], key="mcpServers")
    app = McpAppConfig(mcp_servers=[_entry("proj", "from-app"), _entry("glob", "from-app"),
                                    _entry("both", "from-app"), _entry("app-only", "from-app")])
    found = {s.name: s.server for s in effective_servers(ctx, app=app).servers}
    assert found["proj"].command == "from-project" and found["glob"].command == "from-global"
    assert found["both"].command == "from-env"  # the variable's entries first, then the app's
    assert found["app-only"].command == "from-app"  # over servers imported from other tools
    assert found["app-only"].source.provider == "app" and not needs_trust(found["app-only"])
    assert found["cur"].source.provider == "cursor"


def test_invalid_app_entries_are_reported_without_values(
        make_ctx: Callable[..., LemonContext]) -> None:
    app = McpAppConfig(mcp_servers=[{"name": "bad", "type": "http",
                                     "url": f"mailto:{SECRET}"}, _entry("good", "g")])
    effective = effective_servers(make_ctx(), app=app)
    assert [s.name for s in effective.servers] == ["good"]
    (error,) = effective.errors
    assert (error.provider, error.scope) == ("app", "app")
    assert error.message.startswith('mcp_servers[0] "bad": field "url"')
    assert SECRET not in error.message


def test_switches_apply_where_the_environment_is_silent(
        make_ctx: Callable[..., LemonContext], tmp_path: Path) -> None:
    ctx = make_ctx()
    _write(ctx.cwd / ".cursor" / "mcp.json", [_entry("cur", "c")], key="mcpServers")
    off = McpAppConfig(mcp_external_discovery=False)
    assert [s.name for s in effective_servers(ctx, app=off).servers] == []
    assert [s.name for s in effective_servers(
        make_ctx(LEMON_MCP_EXTERNAL_DISCOVERY="1"), app=off).servers] == ["cur"]  # env wins
    disabled = McpAppConfig(mcp_servers=[_entry("a", "a")], mcp_disabled=True)
    assert not effective_servers(ctx, app=disabled).mcp_enabled
    assert effective_servers(make_ctx(LEMON_MCP_DISABLED="0"), app=disabled).mcp_enabled


def test_user_discovery_and_its_home(make_ctx: Callable[..., LemonContext],
                                     tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _write(elsewhere / ".cursor" / "mcp.json", [_entry("user-cur", "u")], key="mcpServers")
    ctx = make_ctx()
    assert effective_servers(ctx, app=McpAppConfig(mcp_discovery_home=elsewhere)).servers == ()
    app = McpAppConfig(mcp_external_user_discovery=["cursor"], mcp_discovery_home=elsewhere)
    (server,) = effective_servers(ctx, app=app).servers
    assert server.name == "user-cur" and server.server.source.scope == "user"
    assert McpAppConfig(mcp_external_user_discovery=True).variables() == \
        {"LEMON_MCP_EXTERNAL_USER_DISCOVERY": "1"}
