"""OpenCode: ``opencode.json[c]``, ``.opencode/opencode.json[c]``, ``~/.config/opencode/``;
key ``mcp``; JSONC; ``{env:}`` / ``{file:}`` substitution before parsing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.plugins.mcp_importers.workspace import Workspace

# Written from OpenCode's documented config (opencode.ai/docs/mcp-servers), comments included.
CONFIG = """{
  "$schema": "https://opencode.ai/config.json",
  // local servers are an argv array
  "mcp": {
    "everything": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-everything"],
      "environment": {"MY_ENV_VAR": "{env:MY_ENV_VAR}", "MISSING": "{env:NOT_SET}"},
      "enabled": true,
      "timeout": 8000,
    },
    "remote": {
      "type": "remote",
      "url": "https://mcp.example.test/mcp",
      "headers": {"Authorization": "Bearer {file:./secrets/token.txt}"},
      "oauth": {"clientId": "c", "clientSecret": "never-imported"},
    },
    // "commented": {"url": "{file:./does-not-exist}"},
    "inferred-remote": {"url": "https://inferred.example.test/mcp"},
    "inferred-local": {"command": ["uvx", "tool"]},
    "disabled": {"type": "local", "command": ["x"], "enabled": false},
    /* {file:also-never-read} */
  },
}"""


def test_the_documented_format(ws: Workspace) -> None:
    ws.write("secrets/token.txt", "  tok-789\n")
    ws.write("opencode.jsonc", CONFIG)
    outcome = ws.run(MY_ENV_VAR='va"l\\ue')
    assert outcome.errors == () and outcome.skipped == ()
    everything, remote, inferred_remote, inferred_local, disabled = outcome.servers
    assert (everything.transport, everything.command) == ("stdio", "npx")
    assert everything.args == ("-y", "@modelcontextprotocol/server-everything")
    assert everything.env == {"MY_ENV_VAR": 'va"l\\ue', "MISSING": ""}
    assert everything.timeout_ms == 8000
    assert (remote.transport, remote.url) == ("http", "https://mcp.example.test/mcp")
    assert remote.headers == {"Authorization": "Bearer tok-789"}
    assert "never-imported" not in repr(outcome)
    assert inferred_remote.transport == "http" and inferred_local.transport == "stdio"
    assert inferred_local.args == ("tool",) and disabled.enabled is False


def test_file_paths_home_and_absolute(ws: Workspace, tmp_path: object) -> None:
    ws.write("key", "from-home", user=True)
    absolute = ws.write("abs/key", "from-abs")
    ws.write(
        ".opencode/opencode.json",
        json.dumps(
            {
                "mcp": {
                    "a": {
                        "type": "remote",
                        "url": "https://e.test",
                        "headers": {
                            "H": "{file:~/key}",
                            "A": "{file:" + str(absolute) + "}",
                            "R": "{file:../abs/key}",
                        },
                    }
                }
            }
        ),
    )
    server = ws.one("a")
    assert server.headers == {"H": "from-home", "A": "from-abs", "R": "from-abs"}


def test_a_missing_file_reference_fails_the_file_only(ws: Workspace) -> None:
    ws.write(
        "opencode.json",
        '{"mcp": {"a": {"url": "https://e.test", "headers": {"K": "{file:gone.txt}"}}}}',
    )
    ws.write(".opencode/opencode.json", '{"mcp": {"b": {"command": ["x"]}}}')
    outcome = ws.run()
    assert [s.name for s in outcome.servers] == ["b"]
    assert [(e.kind, e.file) for e in outcome.errors] == [("read", str(ws.proj / "opencode.json"))]
    assert "gone.txt" in outcome.errors[0].message


def test_a_nul_in_a_file_reference_fails_that_file_only(ws: Workspace) -> None:
    ws.write("opencode.json", '{"mcp": {"a": {"command": ["x"], "env": {"K": "{file:a\x00b}"}}}}')
    ws.write(".opencode/opencode.json", '{"mcp": {"b": {"command": ["x"]}}}')
    outcome = ws.run()
    assert [s.name for s in outcome.servers] == ["b"]
    assert [(e.kind, e.file) for e in outcome.errors] == [("read", str(ws.proj / "opencode.json"))]


def test_a_huge_referenced_file_is_not_read(ws: Workspace) -> None:
    ws.write("big", b"x" * (4 * 1024 * 1024 + 1))
    ws.write(
        "opencode.json", '{"mcp": {"a": {"url": "https://e.test", "headers": {"K": "{file:big}"}}}}'
    )
    assert "too large" in ws.run().errors[0].message


def test_file_order_first_wins_no_deep_merge(ws: Workspace) -> None:
    ws.write("opencode.json", {"mcp": {"a": {"type": "local", "command": ["root"]}}})
    ws.write(
        "opencode.jsonc",
        {"mcp": {"a": {"type": "local", "command": ["rootc"]}, "c": {"command": ["c"]}}},
    )
    ws.write(".opencode/opencode.json", {"mcp": {"a": {"enabled": False}}})
    outcome = ws.run()
    assert [(s.name, s.command, s.enabled) for s in outcome.servers] == [
        ("a", "root", True),
        ("c", "c", True),
    ]
    assert [(e.name, e.reason, Path(e.file).name) for e in outcome.skipped] == [
        ("a", "no_command_or_url", "opencode.json"),  # .opencode/opencode.json
        ("a", "shadowed", "opencode.jsonc"),
    ]


def test_skips_and_wrong_types(ws: Workspace) -> None:
    ws.write(
        "opencode.json",
        {
            "mcp": {
                "both": {"command": ["x"], "url": "https://e.test"},
                "empty-argv": {"command": [], "url": "https://e.test"},
                "empty-argv-only": {"command": []},
                "bad-argv-and-url": {"command": ["x", 1], "url": "https://e.test", "enabled": 0},
                "bad-args-and-url": {"command": ["x"], "args": "a", "url": "https://e.test"},
                "bad-args": {"command": ["x"], "args": "a"},
                "numbers": {"command": ["x", 1]},
                "bad-type": {"type": "stdio-ish", "command": ["x"]},
                "remote-without-url": {"type": "remote", "command": ["x"]},
                "env-not-object": {"command": ["x"], "environment": ["A=1"]},
                "plain-string": {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}},
            }
        },
    )
    outcome = ws.run()
    assert [(s.name, s.command, s.args, dict(s.env)) for s in outcome.servers] == [
        ("plain-string", "npx", ("-y", "pkg"), {"A": "1"})
    ]
    assert [(e.name, e.reason) for e in outcome.skipped] == [
        ("both", "command_and_url"),
        ("empty-argv", "command_and_url"),
        ("empty-argv-only", "invalid_entry"),
        ("bad-argv-and-url", "command_and_url"),
        ("bad-args-and-url", "command_and_url"),
        ("bad-args", "invalid_entry"),
        ("numbers", "invalid_entry"),
        ("bad-type", "unsupported_type"),
        ("remote-without-url", "type_mismatch"),
        ("env-not-object", "invalid_entry"),
    ]


def test_no_dollar_expansion(ws: Workspace) -> None:
    ws.write("opencode.json", {"mcp": {"a": {"command": ["${HOME_X}"]}}})
    assert ws.one("a", HOME_X="expanded").command == "${HOME_X}"


def test_substituted_values_cannot_break_the_file(ws: Workspace) -> None:
    ws.write("opencode.json", '{"mcp": {"a": {"command": ["{env:EVIL}"]}}}')
    evil = '", "injected": "1"}, "b": {"command": ["pwned'
    outcome = ws.run(EVIL=evil)
    assert [(s.name, s.command) for s in outcome.servers] == [("a", evil)]


def test_user_files_with_opt_in(ws: Workspace) -> None:
    ws.write(".config/opencode/opencode.jsonc", '{"mcp": {"u": {"command": ["x"]},}}', user=True)
    assert ws.run().servers == ()
    assert ws.one("u", LEMON_MCP_EXTERNAL_USER_DISCOVERY="opencode").source.scope == "user"


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.opencode")
    assert info.entry_point == "lemon_plugins.mcp_importers.opencode" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "opencode").order == 50
