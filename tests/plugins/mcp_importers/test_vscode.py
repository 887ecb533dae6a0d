"""VS Code: ``.vscode/mcp.json`` only; ``servers`` or ``mcp.servers``; ``${workspaceFolder}``."""

from __future__ import annotations

from tests.plugins.mcp_importers.workspace import Workspace

# Written from VS Code's documented mcp.json (code.visualstudio.com, MCP configuration reference).
CONFIG = """{
  // inputs are prompted by VS Code and never imported
  "inputs": [{"type": "promptString", "id": "api-key", "description": "Key", "password": true}],
  "servers": {
    "local": {
      "type": "stdio",
      "command": "${workspaceFolder}/bin/server",
      "args": ["--data", "${workspaceFolder}/data", "${userHome}"],
      "env": {"MODE": "${MODE:-dev}"},
      "envFile": "${workspaceFolder}/.env"
    },
    "remote": {
      "type": "http",
      "url": "https://example.test/mcp",
      "headers": {"Authorization": "Bearer ${input:api-key}", "X-Env": "${env:HOME}"}
    },
    "events": {"type": "sse", "url": "https://events.example.test/sse"},
  }
}"""


def test_the_documented_format(ws: Workspace) -> None:
    ws.write(".vscode/mcp.json", CONFIG)
    outcome = ws.run(workspaceFolder="/not/this")
    assert outcome.errors == () and outcome.skipped == ()
    local, remote, events = outcome.servers
    assert local.command == f"{ws.proj}/bin/server"
    assert local.args == ("--data", f"{ws.proj}/data", "${userHome}")
    assert local.env == {"MODE": "dev"}
    assert remote.headers == {"Authorization": "Bearer ${input:api-key}", "X-Env": "${env:HOME}"}
    assert events.transport == "sse"


def test_the_older_mcp_servers_forms(ws: Workspace) -> None:
    ws.write(
        ".vscode/mcp.json",
        {
            "mcp": {"servers": {"nested": {"command": "x"}}},
            "mcp.servers": {"flat": {"command": "y"}},
            "servers": {"top": {"command": "z"}},
        },
    )
    assert [s.name for s in ws.run().servers] == ["top", "nested", "flat"]


def test_no_user_file_even_opted_in(ws: Workspace) -> None:
    ws.write(".vscode/mcp.json", {"servers": {"u": {"command": "x"}}}, user=True)
    ws.write(".config/Code/User/mcp.json", {"servers": {"u": {"command": "x"}}}, user=True)
    assert ws.run(LEMON_MCP_EXTERNAL_USER_DISCOVERY="1").servers == ()


def test_wrong_shapes(ws: Workspace) -> None:
    ws.write(".vscode/mcp.json", {"servers": [{"command": "x"}]})
    assert [e.kind for e in ws.run().errors] == ["schema"]


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.vscode")
    assert info.entry_point == "lemon_plugins.mcp_importers.vscode" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "vscode").order == 80
