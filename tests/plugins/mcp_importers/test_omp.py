"""omp: ``.omp/mcp.json``, ``.omp/.mcp.json``, and the always-read user files."""

from __future__ import annotations

import os

from tests.plugins.mcp_importers.workspace import Workspace

# Written from omp's documented format (docs/mcp-config.md, mcp-schema.json).
OMP_FILE = {
    "$schema": "https://example.test/omp-mcp-schema.json",
    "mcpServers": {
        "fs": {
            "command": "${TOOLS:-/opt/tools}/fs-server",
            "args": ["--root", "${HOME_DIR}", "$BARE"],
            "env": {"API_KEY": "${API_KEY}", "MODE": "${MODE:-dev}"},
            "cwd": "${WORK}",
            "timeout": 45000,
        },
        "search": {
            "type": "http",
            "url": "https://${HOST}/mcp",
            "headers": {"Authorization": "Bearer ${TOKEN}"},
            "auth": {"type": "oauth", "clientSecret": "never-imported"},
            "oauth": {"clientId": "c", "clientSecret": "never-imported"},
        },
        "events": {"type": "sse", "url": "https://events.example.test/sse", "timeout": 0},
        "paused": {"command": "paused-server", "enabled": False},
    },
}
ENV = {
    "HOME_DIR": "/home/me",
    "API_KEY": "k-123",
    "WORK": "/work",
    "HOST": "api.example.test",
    "TOKEN": "tok-456",
}


def test_the_documented_format(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", OMP_FILE)
    outcome = ws.run(**ENV)
    assert outcome.errors == () and outcome.skipped == ()
    fs, search, events, paused = outcome.servers
    assert (fs.transport, fs.command) == ("stdio", "/opt/tools/fs-server")
    assert fs.args == ("--root", "/home/me", "$BARE")
    assert fs.env == {"API_KEY": "k-123", "MODE": "dev"}
    assert (fs.cwd, fs.timeout_ms, fs.url, fs.enabled) == ("/work", 45000, None, True)
    assert (search.transport, search.url) == ("http", "https://api.example.test/mcp")
    assert search.headers == {"Authorization": "Bearer tok-456"}
    assert search.oauth is None and search.extra == {}
    assert "never-imported" not in repr(outcome)
    assert (events.transport, events.timeout_ms) == ("sse", None)  # 0 = no per-server timeout
    assert (paused.name, paused.enabled) == ("paused", False)
    assert fs.source.provider == "omp" and fs.source.scope == "project"
    assert fs.source.file == str(ws.proj / ".omp/mcp.json")


def test_unset_variables_stay_literal(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", OMP_FILE)
    fs = ws.run().servers[0]
    assert fs.env == {"API_KEY": "${API_KEY}", "MODE": "dev"}
    assert fs.args[1] == "${HOME_DIR}"


def test_both_project_files_then_both_user_files(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", {"mcpServers": {"a": {"command": "1"}}})
    ws.write(".omp/.mcp.json", {"mcpServers": {"b": {"command": "2"}}})
    ws.write(".omp/agent/mcp.json", {"mcpServers": {"c": {"command": "3"}}}, user=True)
    ws.write(
        ".omp/agent/.mcp.json",
        {"mcpServers": {"d": {"command": "4"}, "a": {"command": "5"}}},
        user=True,
    )
    outcome = ws.run()
    assert [(s.name, s.command, s.source.scope) for s in outcome.servers] == [
        ("a", "1", "project"),
        ("b", "2", "project"),
        ("c", "3", "user"),
        ("d", "4", "user"),
    ]


def test_disabled_servers_of_the_same_file_import_disabled(ws: Workspace) -> None:
    ws.write(
        ".omp/agent/mcp.json",
        {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}, "disabledServers": ["b", 7]},
        user=True,
    )
    assert [(s.name, s.enabled) for s in ws.run().servers] == [("a", True), ("b", False)]


def test_skips_and_their_reasons(ws: Workspace) -> None:
    ws.write(
        ".omp/mcp.json",
        {
            "mcpServers": {
                "both": {"command": "x", "url": "https://e.test"},
                "neither": {"args": ["x"]},
                "bad name": {"command": "x"},
                "-dash": {"command": "x"},
                "x" * 65: {"command": "x"},
                "ok" + "\u0430": {"command": "x"},  # Cyrillic a
                "\uff41bc": {"command": "x"},  # fullwidth a
                "wrong-args": {"command": "x", "args": "--flag"},
                "wrong-env": {"command": "x", "env": {"PORT": 8080}},
                "wrong-timeout": {"command": "x", "timeout": "soon"},
                "negative-timeout": {"command": "x", "timeout": -1},
                "bool-timeout": {"command": "x", "timeout": True},
                "wrong-enabled": {"command": "x", "enabled": "no"},
                "empty-command": {"command": ""},
                "nul": {"command": "a\u0000b"},
                "ws": {"type": "websocket", "url": "wss://e.test"},
                "mismatch": {"type": "stdio", "url": "https://e.test"},
                "not-object": ["command", "x"],
                "x" * 64: {"command": "x"},
                "ok.name_1-2": {"command": "x"},
            }
        },
    )
    outcome = ws.run()
    assert [s.name for s in outcome.servers] == ["x" * 64, "ok.name_1-2"]
    reasons = [(e.name, e.reason) for e in outcome.skipped]
    assert reasons == [
        ("both", "command_and_url"),
        ("neither", "no_command_or_url"),
        ("bad name", "invalid_name"),
        ("-dash", "invalid_name"),
        ("x" * 65, "invalid_name"),
        ("ok\u0430", "invalid_name"),
        ("\uff41bc", "invalid_name"),
        ("wrong-args", "invalid_entry"),
        ("wrong-env", "invalid_entry"),
        ("wrong-timeout", "invalid_entry"),
        ("negative-timeout", "invalid_entry"),
        ("bool-timeout", "invalid_entry"),
        ("wrong-enabled", "invalid_entry"),
        ("empty-command", "invalid_entry"),
        ("nul", "invalid_entry"),
        ("ws", "unsupported_type"),
        ("mismatch", "type_mismatch"),
        ("not-object", "invalid_entry"),
    ]


def test_a_huge_integer_skips_its_entry_only(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", '{"mcpServers": {"big": {"command": "x", "timeout": 1'
             + "0" * 400 + '}, "ok": {"command": "x", "timeout": 10}}}')  # fmt: skip
    outcome = ws.run()
    assert outcome.errors == ()
    assert [(s.name, s.timeout_ms) for s in outcome.servers] == [("ok", 10)]
    assert [(e.name, e.reason) for e in outcome.skipped] == [("big", "invalid_entry")]


def test_both_a_command_and_a_url_is_reported_first(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", {"mcpServers": {"a": {"command": "x", "url": "https://e.test",
                                                    "enabled": "no", "disabled": 3}}})  # fmt: skip
    assert [(e.name, e.reason) for e in ws.run().skipped] == [("a", "command_and_url")]


def test_long_and_control_character_names_are_reported_printably(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", {"mcpServers": {"a\u202eb\nc" + "y" * 500: {"command": "x"}}})
    (entry,) = ws.run().skipped
    # cut at 100 characters, then escaped the one way (lemon_core.text.escape)
    assert entry.name == "a\\u202eb\\x0ac" + "y" * 95 + "\u2026"


def test_schema_problems_fail_the_file(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", {"mcpServers": ["a", "b"]})
    ws.write(".omp/.mcp.json", '["not", "an", "object"]')
    outcome = ws.run()
    assert [(e.kind, e.file) for e in outcome.errors] == [
        ("schema", str(ws.proj / ".omp/mcp.json")),
        ("schema", str(ws.proj / ".omp/.mcp.json")),
    ]


def test_a_file_without_servers_is_silent(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", {"$schema": "x"})
    assert ws.run() == type(ws.run())()


def test_hostile_files(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", b"{" + b" " * (4 * 1024 * 1024) + b"}")
    os.mkfifo(ws.proj / ".omp/.mcp.json")  # reading a FIFO would block forever
    ws.write(".omp/agent/mcp.json", b'{"mcpServers": {"\xff": 1}}', user=True)
    ws.write(".omp/agent/.mcp.json", "[" * 100_000, user=True)
    outcome = ws.run()
    messages = [(e.scope, e.kind, e.message) for e in outcome.errors]
    assert messages[0][:2] == ("project", "read") and "too large" in messages[0][2]
    assert messages[1][:2] == ("project", "read") and "not a regular file" in messages[1][2]
    assert messages[2][:2] == ("user", "parse") and "UTF-8" in messages[2][2]
    assert messages[3][:2] == ("user", "parse")


def test_a_bom_is_accepted(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", b'\xef\xbb\xbf{"mcpServers": {"a": {"command": "x"}}}')
    assert [s.name for s in ws.run().servers] == ["a"]


def test_secrets_never_reach_error_messages(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", '{"mcpServers": {"a": {"env": {"K": "sk-LEAK-1"}} oops')
    outcome = ws.run(TOKEN="sk-LEAK-2")
    assert outcome.errors and "sk-LEAK" not in repr(outcome.errors)


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.omp")
    assert info.entry_point == "lemon_plugins.mcp_importers.omp"
    assert info.group == "lemon.mcp_importers" and info.builtin
    importer = next(i for i in ws.plugins.mcp_importers() if i.name == "omp")
    assert importer.order == 10
