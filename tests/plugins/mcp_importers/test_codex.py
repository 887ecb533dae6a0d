"""Codex: ``.codex/config.toml`` and ``~/.codex/config.toml``, ``[mcp_servers.<name>]`` tables."""

from __future__ import annotations

from tests.plugins.mcp_importers.workspace import Workspace

# Written from the documented config.toml keys (docs/config.md, developers.openai.com/codex/mcp).
CONFIG = r"""
model = "o3"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp", "${NOT_EXPANDED}"]
env = { MODE = "prod", SHARED = "from-table" }
env_vars = ["DOCS_TOKEN", { name = "REGION", source = "local" }, "UNSET_VAR", "EMPTY_VAR"]
tool_timeout_sec = 120.5
startup_timeout_sec = 20
enabled_tools = ["search", "fetch"]
disabled_tools = ["delete"]

[mcp_servers."team.search"]
url = "https://search.example.test/mcp"
bearer_token_env_var = "SEARCH_TOKEN"
http_headers = { "X-Static" = "1" }
env_http_headers = { "X-Org" = "ORG_ID", "X-Missing" = "UNSET_VAR", "X-Empty" = "EMPTY_VAR" }
scopes = ["read"]
oauth_resource = "https://search.example.test"

[mcp_servers.local]
command = "./bin/server"
cwd = "tools"
startup_timeout_ms = 2500

[mcp_servers.up]
command = "../scripts/run.sh"

[mcp_servers.off]
command = "off-server"
enabled = false
"""
ENV = {
    "DOCS_TOKEN": "dt-1",
    "REGION": "eu",
    "EMPTY_VAR": "",
    "SEARCH_TOKEN": "st-2",
    "ORG_ID": "org-3",
}


def test_the_documented_format(ws: Workspace) -> None:
    path = ws.write(".codex/config.toml", CONFIG)
    outcome = ws.run(**ENV)
    assert outcome.errors == () and outcome.skipped == ()
    docs, search, local, up, off = outcome.servers
    assert (docs.transport, docs.command) == ("stdio", "npx")
    assert docs.args == ("-y", "docs-mcp", "${NOT_EXPANDED}")  # no ${} in Codex TOML
    assert docs.env == {
        "MODE": "prod",
        "SHARED": "from-table",
        "DOCS_TOKEN": "dt-1",
        "REGION": "eu",
        "EMPTY_VAR": "",
    }
    assert (docs.timeout_ms, docs.ready_timeout_ms) == (120500, 20000)
    assert (docs.allow_tools, docs.block_tools) == (("search", "fetch"), ("delete",))
    assert (search.name, search.transport, search.url) == (
        "team.search",
        "http",
        "https://search.example.test/mcp",
    )
    assert search.headers == {"X-Static": "1", "X-Org": "org-3", "Authorization": "Bearer st-2"}
    config_dir = path.parent
    assert local.cwd == str(config_dir / "tools")
    assert local.command == str(config_dir / "tools/bin/server")
    assert local.ready_timeout_ms == 2500
    assert up.command == str(ws.proj / "scripts/run.sh") and up.cwd is None
    assert off.enabled is False


def test_unset_bearer_variable_omits_the_header(ws: Workspace) -> None:
    ws.write(".codex/config.toml", CONFIG)
    search = ws.run().servers[1]
    assert search.headers == {"X-Static": "1"}


def test_absolute_cwd_and_plain_commands_are_kept(ws: Workspace) -> None:
    ws.write(".codex/config.toml", '[mcp_servers.a]\ncommand = "uvx"\ncwd = "/srv/a"\n')
    server = ws.one("a")
    assert (server.command, server.cwd) == ("uvx", "/srv/a")


def test_fractional_and_tiny_timeouts(ws: Workspace) -> None:
    ws.write(
        ".codex/config.toml",
        '[mcp_servers.a]\ncommand = "x"\ntool_timeout_sec = 0.0001\n'
        '[mcp_servers.b]\ncommand = "x"\ntool_timeout_sec = 1.1\n',
    )
    assert [s.timeout_ms for s in ws.run().servers] == [1, 1100]


def test_type_keys_are_ignored_and_both_keys_skip(ws: Workspace) -> None:
    ws.write(
        ".codex/config.toml",
        '[mcp_servers.a]\ntype = "stdio"\nurl = "https://e.test/mcp"\n'
        '[mcp_servers.b]\ncommand = "x"\nurl = "https://e.test/mcp"\nenv_vars = "NOT_A_LIST"\n'
        '[mcp_servers.team.search]\nurl = "https://e.test/mcp"\n',
    )
    outcome = ws.run()
    assert [(s.name, s.transport) for s in outcome.servers] == [("a", "http")]
    # an unquoted dotted name makes nested tables: "team" has neither command nor URL
    assert [(e.name, e.reason) for e in outcome.skipped] == [
        ("b", "command_and_url"),
        ("team", "no_command_or_url"),
    ]


def test_wrong_types_skip_the_entry(ws: Workspace) -> None:
    ws.write(
        ".codex/config.toml",
        "\n".join(
            [
                '[mcp_servers]\nj = "not a table"',
                '[mcp_servers.a]\ncommand = "x"\nenv_vars = "TOKEN"',
                '[mcp_servers.b]\ncommand = "x"\nenv_vars = [{ source = "local" }]',
                '[mcp_servers.c]\nurl = "https://e.test"\nbearer_token_env_var = 5',
                '[mcp_servers.d]\ncommand = "x"\ntool_timeout_sec = "60"',
                '[mcp_servers.e]\ncommand = "x"\nargs = [1, 2]',
                '[mcp_servers.f]\ncommand = "x"\ncwd = 1979-05-27',
                '[mcp_servers.g]\ncommand = "x"\ntool_timeout_sec = inf',
                '[mcp_servers.h]\ncommand = "x"\nenabled = "yes"',
                '[mcp_servers.i]\nurl = "https://e.test"\nenv_http_headers = ["X"]',
                '[mcp_servers.ok]\ncommand = "x"',
            ]
        ),
    )
    outcome = ws.run(TOKEN="t")
    assert [s.name for s in outcome.servers] == ["ok"]
    assert {e.name: e.reason for e in outcome.skipped} == dict.fromkeys("abcdefghij", "invalid_entry")


def test_invalid_toml_is_reported_without_content(ws: Workspace) -> None:
    ws.write(".codex/config.toml", '[mcp_servers.a]\ncommand = "x"\nbearer = sk-LEAKED-TOKEN\n')
    outcome = ws.run()
    assert [e.kind for e in outcome.errors] == ["parse"]
    assert "sk-LEAKED" not in outcome.errors[0].message


def test_deeply_nested_toml_does_not_crash(ws: Workspace) -> None:
    ws.write(".codex/config.toml", "x = " + "[" * 50_000 + "]" * 50_000 + "\n")
    outcome = ws.run()
    assert outcome.servers == ()


def test_mcp_servers_must_be_a_table(ws: Workspace) -> None:
    ws.write(".codex/config.toml", 'mcp_servers = ["a"]\n')
    assert [e.kind for e in ws.run().errors] == ["schema"]


def test_user_file_with_opt_in(ws: Workspace) -> None:
    ws.write(".codex/config.toml", '[mcp_servers.u]\ncommand = "./run"\n', user=True)
    assert ws.run().servers == ()
    server = ws.one("u", LEMON_MCP_EXTERNAL_USER_DISCOVERY="codex")
    assert server.source.scope == "user"
    assert server.command == str(ws.home / ".codex/run")


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.codex")
    assert info.entry_point == "lemon_plugins.mcp_importers.codex" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "codex").order == 30
