"""Windsurf: ``.windsurf/mcp_config.json`` and ``~/.codeium/windsurf/mcp_config.json``."""

from __future__ import annotations

from tests.plugins.mcp_importers.workspace import Workspace

# Written from Windsurf's documented mcp_config.json (docs.windsurf.com, Cascade MCP).
CONFIG = {
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_PAT}"},
            "disabledTools": ["delete_repo"],
        },
        "remote": {
            "serverUrl": "https://remote.example.test/sse",
            "headers": {"API_KEY": "${env:REMOTE_KEY}"},
        },
        "plain-url": {"url": "https://plain.example.test/mcp"},
        "both-urls": {"serverUrl": "https://server.example.test/mcp", "url": "https://u.test"},
        "off": {"command": "x", "disabled": True},
        "mixed": {"command": "x", "serverUrl": "https://e.test"},
        "bad-disabled": {"command": "x", "disabled": "yes"},
    }
}


def test_the_documented_format(ws: Workspace) -> None:
    ws.write(".windsurf/mcp_config.json", CONFIG)
    outcome = ws.run(GH_PAT="pat-1", REMOTE_KEY="rk")
    github, remote, plain, both, off = outcome.servers
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "pat-1"}
    assert github.block_tools == ("delete_repo",) and github.allow_tools is None
    assert (remote.transport, remote.url) == ("http", "https://remote.example.test/sse")
    assert remote.headers == {"API_KEY": "${env:REMOTE_KEY}"}  # Windsurf's own syntax: literal
    assert (plain.transport, plain.url) == ("http", "https://plain.example.test/mcp")
    assert both.url == "https://server.example.test/mcp"
    assert off.enabled is False
    assert [(e.name, e.reason) for e in outcome.skipped] == [
        ("mixed", "command_and_url"),
        ("bad-disabled", "invalid_entry"),
    ]


def test_user_file_with_opt_in(ws: Workspace) -> None:
    ws.write(
        ".codeium/windsurf/mcp_config.json",
        {"mcpServers": {"u": {"serverUrl": "https://e"}}},
        user=True,
    )
    assert ws.run().servers == ()
    assert ws.one("u", LEMON_MCP_EXTERNAL_USER_DISCOVERY="windsurf").url == "https://e"


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.windsurf")
    assert info.entry_point == "lemon_plugins.mcp_importers.windsurf" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "windsurf").order == 70
