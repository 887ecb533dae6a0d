"""Root files: ``mcp.json`` then ``.mcp.json`` in the requesting directory, last of all."""

from __future__ import annotations

from tests.plugins.mcp_importers.workspace import Workspace


def test_both_files_in_order_with_claude_format(ws: Workspace) -> None:
    # Written from the portable .mcp.json format (Claude Code's project file).
    ws.write(
        "mcp.json",
        {
            "mcpServers": {
                "fs": {
                    "type": "stdio",
                    "command": "npx",
                    "args": ["-y", "fs-server", "${ROOT:-.}"],
                },
                "shared": {"command": "from-mcp-json"},
            }
        },
    )
    ws.write(
        ".mcp.json",
        {
            "mcpServers": {
                "shared": {"command": "from-dot-mcp-json"},
                "api": {
                    "type": "http",
                    "url": "https://api.example.test/mcp",
                    "headers": {"Authorization": "Bearer ${API_TOKEN}"},
                },
            }
        },
    )
    outcome = ws.run(API_TOKEN="at")
    assert [(s.name, s.command or s.url) for s in outcome.servers] == [
        ("fs", "npx"),
        ("shared", "from-mcp-json"),
        ("api", "https://api.example.test/mcp"),
    ]
    assert outcome.servers[0].args == ("-y", "fs-server", ".")
    assert outcome.servers[2].headers == {"Authorization": "Bearer at"}
    assert {s.source.provider for s in outcome.servers} == {"root"}


def test_every_other_provider_wins_over_root_files(ws: Workspace) -> None:
    ws.write(".mcp.json", {"mcpServers": {"x": {"command": "root"}}})
    ws.write(".vscode/mcp.json", {"servers": {"x": {"command": "vscode"}}})
    assert ws.one("x").command == "vscode"


def test_no_user_files(ws: Workspace) -> None:
    ws.write(".mcp.json", {"mcpServers": {"x": {"command": "root"}}}, user=True)
    assert ws.run(LEMON_MCP_EXTERNAL_USER_DISCOVERY="1").servers == ()


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.root")
    assert info.entry_point == "lemon_plugins.mcp_importers.root_files" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "root").order == 90
