"""Cursor: ``.cursor/mcp.json`` and ``~/.cursor/mcp.json``, key ``mcpServers``."""

from __future__ import annotations

from tests.plugins.mcp_importers.workspace import Workspace

# Written from Cursor's documented mcp.json format (cursor.com/docs/mcp).
CONFIG = {
    "mcpServers": {
        "local-tool": {
            "command": "npx",
            "args": ["-y", "tool-mcp", "${workspaceFolder}"],
            "env": {"API_KEY": "${API_KEY}", "NATIVE": "${env:API_KEY}"},
            "envFile": ".env",
        },
        "remote": {
            "url": "https://remote.example.test/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN:-anonymous}"},
            "auth": {"CLIENT_ID": "cid", "CLIENT_SECRET": "never-imported", "scopes": ["r"]},
        },
        "typed": {"type": "sse", "url": "https://sse.example.test/sse"},
        "Zuplo MCP": {"url": "https://published.example.test/mcp"},
    }
}


def test_the_documented_format(ws: Workspace) -> None:
    ws.write(".cursor/mcp.json", CONFIG)
    outcome = ws.run(API_KEY="k-1")
    local, remote, typed = outcome.servers
    assert local.args == ("-y", "tool-mcp", "${workspaceFolder}")  # Cursor's own: literal
    assert local.env == {"API_KEY": "k-1", "NATIVE": "${env:API_KEY}"}
    assert (remote.transport, remote.headers) == ("http", {"Authorization": "Bearer anonymous"})
    assert "never-imported" not in repr(outcome) and ".env" not in repr(outcome.servers)
    assert typed.transport == "sse"
    assert [(e.name, e.reason) for e in outcome.skipped] == [("Zuplo MCP", "invalid_name")]


def test_user_file_with_opt_in(ws: Workspace) -> None:
    ws.write(".cursor/mcp.json", {"mcpServers": {"u": {"command": "x"}}}, user=True)
    assert ws.run().servers == ()
    assert ws.one("u", LEMON_MCP_EXTERNAL_USER_DISCOVERY="1").source.scope == "user"


def test_strict_json(ws: Workspace) -> None:
    ws.write(".cursor/mcp.json", '{"mcpServers": {}, // comment\n}')
    assert [e.kind for e in ws.run().errors] == ["parse"]


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.cursor")
    assert info.entry_point == "lemon_plugins.mcp_importers.cursor" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "cursor").order == 60
