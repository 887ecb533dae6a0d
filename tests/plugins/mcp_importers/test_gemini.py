"""Gemini CLI: ``.gemini/settings.json`` and ``~/.gemini/settings.json`` (JSONC)."""

from __future__ import annotations

import json

from tests.plugins.mcp_importers.workspace import Workspace

# Written from Gemini CLI's documented settings (docs/tools/mcp-server.md), comments included.
SETTINGS = """{
  // Gemini strips comments before parsing
  "theme": "Default",
  "mcp": {"excluded": ["excluded-one"]},
  "mcpServers": {
    "python-tools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {"DATABASE_URL": "${DB_CONNECTION_STRING}", "API_KEY": "$API_KEY"},
      "timeout": 15000,
      "trust": false,
      "includeTools": ["safe_tool", "file_reader"],
      "excludeTools": ["dangerous_tool"]
    },
    "streamable": {
      "httpUrl": "https://api.example.test/mcp",
      "headers": {"Authorization": "Bearer ${TOKEN}"},
      "oauth": {"enabled": true, "clientId": "cid", "clientSecret": "never-imported"},
      "authProviderType": "google_credentials",
      "targetAudience": "aud"
    },
    "legacy-sse": {"url": "https://sse.example.test/sse"},
    "typed-http": {"url": "https://typed.example.test/mcp", "type": "http"},
    "typed-sse": {"url": "https://typed.example.test/sse", "type": "sse"},
    "both-urls": {"url": "https://old.example.test/sse", "httpUrl": "https://new.example.test/mcp"},
    "excluded-one": {"command": "x"},
  },
}"""


def test_the_documented_format(ws: Workspace) -> None:
    ws.write(".gemini/settings.json", SETTINGS)
    outcome = ws.run(DB_CONNECTION_STRING="postgres://db", API_KEY="k", TOKEN="t")
    assert outcome.errors == () and outcome.skipped == ()
    tools, streamable, legacy, typed_http, typed_sse, both, excluded = outcome.servers
    assert (tools.transport, tools.command, tools.cwd) == (
        "stdio",
        "python",
        "./mcp-servers/python",
    )
    assert tools.env == {"DATABASE_URL": "postgres://db", "API_KEY": "$API_KEY"}  # bare $ literal
    assert tools.timeout_ms == 15000
    assert (tools.allow_tools, tools.block_tools) == (
        ("safe_tool", "file_reader"),
        ("dangerous_tool",),
    )
    assert (streamable.transport, streamable.url) == ("http", "https://api.example.test/mcp")
    assert streamable.headers == {"Authorization": "Bearer t"}
    assert "never-imported" not in repr(outcome) and "google_credentials" not in repr(outcome)
    assert (legacy.transport, legacy.url) == ("sse", "https://sse.example.test/sse")
    assert typed_http.transport == "http" and typed_sse.transport == "sse"
    assert (both.transport, both.url) == ("http", "https://new.example.test/mcp")
    assert (excluded.name, excluded.enabled) == ("excluded-one", False)


def test_allowed_list_disables_the_others(ws: Workspace) -> None:
    ws.write(
        ".gemini/settings.json",
        {"mcp": {"allowed": ["a"]}, "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}},
    )
    assert [(s.name, s.enabled) for s in ws.run().servers] == [("a", True), ("b", False)]


def test_command_with_any_url_key_is_skipped(ws: Workspace) -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "a": {"command": "x", "httpUrl": "https://e.test/mcp"},
                "b": {"command": "x", "url": "https://e.test/sse"},
                "c": {"tcp": "localhost:9000"},
                "d": {"url": "https://e.test", "type": "websocket"},
                "e": {"httpUrl": 42},
                "f": {"command": "x", "includeTools": "all"},
                "g": {"command": "x", "timeout": "HUGE"},
            }
        }
    )
    ws.write(".gemini/settings.json", text.replace('"HUGE"', "1e400"))  # a float overflow: inf
    outcome = ws.run()
    assert outcome.servers == ()
    assert [(e.name, e.reason) for e in outcome.skipped] == [
        ("a", "command_and_url"),
        ("b", "command_and_url"),
        ("c", "no_command_or_url"),
        ("d", "unsupported_type"),
        ("e", "invalid_entry"),
        ("f", "invalid_entry"),
        ("g", "invalid_entry"),
    ]


def test_settings_without_servers_are_silent(ws: Workspace) -> None:
    ws.write(".gemini/settings.json", '{"theme": "Dark", /* c */ "mcp": "odd",}')
    outcome = ws.run()
    assert outcome.errors == () and outcome.servers == ()


def test_malformed_settings_are_reported(ws: Workspace) -> None:
    ws.write(".gemini/settings.json", '{"mcpServers": {"a": {"command": "x"}} /* open')
    assert [e.kind for e in ws.run().errors] == ["parse"]


def test_user_file_with_opt_in_after_the_project_file(ws: Workspace) -> None:
    ws.write(".gemini/settings.json", {"mcpServers": {"a": {"command": "project"}}})
    ws.write(
        ".gemini/settings.json",
        {"mcpServers": {"a": {"command": "user"}, "u": {"command": "u"}}},
        user=True,
    )
    assert [s.command for s in ws.run().servers] == ["project"]
    outcome = ws.run(LEMON_MCP_EXTERNAL_USER_DISCOVERY="gemini")
    assert [(s.name, s.command, s.source.scope) for s in outcome.servers] == [
        ("a", "project", "project"),
        ("u", "u", "user"),
    ]


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.gemini")
    assert info.entry_point == "lemon_plugins.mcp_importers.gemini" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "gemini").order == 40
