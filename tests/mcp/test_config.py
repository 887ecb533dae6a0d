"""Reading and validating lemon's own MCP files and LEMON_MCP_SERVERS."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.context import LemonContext
from lemon_core.errors import UsageError
from lemon_core.fsio import write as fsio
from lemon_core.mcp.config import (
    MAX_CONFIG_BYTES,
    McpConfigError,
    env_servers,
    load_json,
    mcp_path,
    parse_file,
    read_file,
)
from lemon_core.mcp.manage import add_server
from lemon_core.mcp.names import check_name, is_valid_name, show
from lemon_core.mcp.spec import ServerSpec
from tests.mcp.support import (
    SECRETS,
    assert_no_secrets,
    ctx,
    project_file,
    secret_servers,
    write_json,
)

#: Fixtures defined in tests/mcp/support.py (conftest.py belongs to the importer tests).
FIXTURES = (ctx, project_file)

P = Path("/p/.lemon/mcp.json")


def parse(data: Any) -> Any:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return parse_file(raw, P, "project")


# -- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["a", "git", "Git", "0", "a.b-c_d", "server-1.2", "x" * 64, "9lives", "A_"]
)
def test_valid_names(name: str) -> None:
    assert is_valid_name(name)
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name",
    ["", "x" * 65, "_a", "-a", ".a", "a b", "a/b", "a:b", "git\n", "\u0433it", "ｇit", "a\u200b",
     "é", "a@b", "a\x00", "a\x1b[31m"],
)  # fmt: skip
def test_invalid_names(name: str) -> None:
    assert not is_valid_name(name)
    with pytest.raises(UsageError) as info:
        check_name(name)
    assert info.value.exit_code == 2
    assert str(info.value).isascii() and "\x1b" not in str(info.value)


@given(st.text(max_size=80))
def test_name_rule_is_the_spec_regex(name: str) -> None:
    expected = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}", name, re.ASCII) is not None
    assert is_valid_name(name) is expected


@given(st.text(max_size=200))
def test_show_is_printable_ascii(value: str) -> None:
    shown = show(value)
    assert shown.isascii() and shown.isprintable()


# -- paths ------------------------------------------------------------------------------------


def test_paths_follow_the_context(make_ctx: Any, tmp_path: Path, home: Path) -> None:
    ctx: LemonContext = make_ctx()
    assert mcp_path(ctx, "project") == ctx.cwd / ".lemon" / "mcp.json"
    assert mcp_path(ctx, "global") == home / ".lemon" / "agent" / "mcp.json"
    isolated = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "elsewhere"))
    assert mcp_path(isolated, "global") == tmp_path / "elsewhere" / "mcp.json"
    with pytest.raises(UsageError):
        mcp_path(ctx, "user")


# -- a valid file -----------------------------------------------------------------------------


def test_full_file_is_normalised() -> None:
    data = {
        "enabled": True,
        "x-top": {"kept": 1},
        "servers": [
            {"name": "git", "type": "stdio", "command": "uvx", "args": ["mcp-server-git"],
             "env": {"K": "v"}, "cwd": "sub", "timeout_ms": 1000, "ready_timeout_ms": 50,
             "allow_tools": ["a"], "block_tools": [], "allow_resources": ["file:///x"],
             "block_prompts": ["p"], "approval": "always", "tool_approvals": {"git_status": "never",
             "resources/read": "always"}, "x-ext": [1, 2]},
            {"type": "sse", "url": "http://localhost:3001/sse", "disabled": True},
            {"name": "api", "type": "http", "url": "https://api.example.com/mcp",
             "headers": {"Authorization": "Bearer t"}, "enabled": False,
             "oauth": {"flow": "authorization_code_pkce", "client_id": "c",
                       "redirect_uri": "http://127.0.0.1:9/cb", "scopes": ["tools"],
                       "authorization_timeout_ms": 10, "authorization_approval": True,
                       "future_key": 1},
             "persist_oauth_tokens": True, "oauth_token_secret": "vault-key"},
        ],
        "enabled_servers": ["api"],
        "disabled_servers": ["git", "imported-one"],
    }  # fmt: skip
    mcp_file = parse(data)
    git, unnamed, api = mcp_file.servers
    assert (git.name, git.transport, git.command, git.args) == (
        "git",
        "stdio",
        "uvx",
        ("mcp-server-git",),
    )
    assert git.env == {"K": "v"} and git.cwd == "sub" and git.timeout_ms == 1000
    assert git.ready_timeout_ms == 50 and git.allow_tools == ("a",) and git.block_tools == ()
    assert git.allow_resources == ("file:///x",) and git.block_resources is None
    assert git.block_prompts == ("p",) and git.approval == "always"
    assert git.tool_approvals == {"git_status": "never", "resources/read": "always"}
    assert git.extra == {"x-ext": [1, 2]} and git.enabled
    assert (
        git.source.provider == "lemon"
        and git.source.scope == "project"
        and git.source.file == str(P)
    )
    assert unnamed.name is None and unnamed.transport == "sse" and not unnamed.enabled
    assert api.oauth is not None and api.oauth["future_key"] == 1 and not api.enabled
    assert api.extra == {"persist_oauth_tokens": True, "oauth_token_secret": "vault-key"}
    assert mcp_file.enabled is True and mcp_file.exists
    assert mcp_file.enabled_servers == ("api",)
    assert mcp_file.state_for("git") is False and mcp_file.state_for("api") is True
    assert mcp_file.state_for("other") is None and mcp_file.index_of("api") == 2
    assert mcp_file.data["x-top"] == {"kept": 1}


def test_kebab_case_keys_are_accepted() -> None:
    server = parse({"servers": [{"name": "a", "type": "stdio", "command": "c",
                                 "allow-tools": ["t"], "timeout-ms": 5,
                                 "tool-approvals": {"t": "never"}}]}).servers[0]  # fmt: skip
    assert server.allow_tools == ("t",) and server.timeout_ms == 5
    assert server.tool_approvals == {"t": "never"}


def test_denylist_wins_within_one_file() -> None:
    mcp_file = parse({"enabled_servers": ["x"], "disabled_servers": ["x"]})
    assert mcp_file.state_for("x") is False


def test_missing_file_is_empty(ctx: LemonContext) -> None:
    mcp_file = read_file(ctx, "project")
    assert not mcp_file.exists and mcp_file.servers == () and mcp_file.data == {}


def test_bom_and_empty_object_are_fine() -> None:
    assert parse(b"\xef\xbb\xbf{}").servers == ()


# -- invalid entries --------------------------------------------------------------------------

STDIO = {"name": "s", "type": "stdio", "command": "c"}
HTTP = {"name": "h", "type": "http", "url": "https://h.example/mcp"}


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"name": "s", "command": "c"}, '"type"'),
        ({**STDIO, "type": "websocket"}, '"type"'),
        ({**STDIO, "type": None}, '"type"'),
        ({"name": "s", "type": "stdio"}, '"command"'),
        ({**STDIO, "command": ""}, '"command"'),
        ({**STDIO, "command": ["npx"]}, '"command"'),
        ({**STDIO, "args": "a b"}, '"args"'),
        ({**STDIO, "args": [1]}, '"args"'),
        ({**STDIO, "env": ["A=1"]}, '"env"'),
        ({**STDIO, "env": {"A": 1}}, '"env"'),
        ({**STDIO, "env": {"A=B": "x"}}, '"env"'),
        ({**STDIO, "cwd": 3}, '"cwd"'),
        ({**STDIO, "url": "https://x.example"}, '"url"'),
        ({**STDIO, "headers": {}}, '"headers"'),
        ({**HTTP, "command": "c"}, '"command"'),
        ({**HTTP, "env": {}}, '"env"'),
        ({**HTTP, "url": "ftp://h.example"}, '"url"'),
        ({**HTTP, "url": "https://"}, '"url"'),
        ({**HTTP, "url": "https://h.example/a b"}, '"url"'),
        ({"name": "h", "type": "http"}, '"url"'),
        ({**HTTP, "headers": {"A": 1}}, '"headers"'),
        ({**HTTP, "headers": {"Bad Name": "v"}}, '"headers"'),
        ({**HTTP, "headers": {"A": "v\r\nX: y"}}, '"headers"'),
        ({**HTTP, "type": "sse", "oauth": {"client_id": "c", "client_secret": "s"}}, '"oauth"'),
        ({**HTTP, "oauth": "token"}, '"oauth"'),
        ({**HTTP, "oauth": {"client_secret": "s"}}, '"oauth.client_id"'),
        ({**HTTP, "oauth": {"client_id": "c"}}, '"oauth.client_secret"'),
        ({**HTTP, "oauth": {"client_id": "c", "flow": "authorization_code_pkce"}}, '"oauth.redirect_uri"'),
        ({**HTTP, "oauth": {"client_id": "c", "client_secret": "s", "flow": "implicit"}}, '"oauth.flow"'),
        ({**HTTP, "oauth": {"client_id": "c", "client_secret": "s", "token_secret": ""}}, '"oauth.token_secret"'),
        ({**HTTP, "oauth": {"client_id": "c", "client_secret": "s", "scopes": "a"}}, '"oauth.scopes"'),
        ({**HTTP, "persist_oauth_tokens": "yes"}, '"persist_oauth_tokens"'),
        ({**HTTP, "oauth_token_secret": ""}, '"oauth_token_secret"'),
        ({**STDIO, "timeout_ms": 0}, '"timeout_ms"'),
        ({**STDIO, "timeout_ms": -5}, '"timeout_ms"'),
        ({**STDIO, "timeout_ms": True}, '"timeout_ms"'),
        ({**STDIO, "timeout_ms": "10"}, '"timeout_ms"'),
        ({**STDIO, "ready_timeout_ms": 1.5}, '"ready_timeout_ms"'),
        ({**STDIO, "approval": "sometimes"}, '"approval"'),
        ({**STDIO, "tool_approvals": {"t": "maybe"}}, '"tool_approvals"'),
        ({**STDIO, "tool_approvals": ["t"]}, '"tool_approvals"'),
        ({**STDIO, "allow_tools": "t"}, '"allow_tools"'),
        ({**STDIO, "block_prompts": [None]}, '"block_prompts"'),
        ({**STDIO, "enabled": "false"}, '"enabled"'),
        ({**STDIO, "disabled": 1}, '"disabled"'),
        ({**STDIO, "enabled": False, "disabled": "yes"}, '"disabled"'),
        ({**STDIO, "name": "bad name"}, '"name"'),
        ({**STDIO, "name": 7}, '"name"'),
        ({**STDIO, "allow_tools": ["a"], "allow-tools": ["b"]}, '"allow_tools"'),
    ],
)  # fmt: skip
def test_invalid_entries_name_the_file_entry_and_field(entry: dict[str, Any], field: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse({"servers": [STDIO | {"name": "first"}, entry]})
    message = str(info.value)
    assert message.startswith(f"{P}: servers[1]")
    assert field in message
    assert info.value.kind == "invalid" and info.value.exit_code == 1


def test_messages_never_quote_credential_values() -> None:
    bad = [
        {"name": "a", "type": "stdio", "command": "c", "env": {"K": SECRETS[0], "": SECRETS[0]}},
        {"name": "b", "type": "http", "url": f"ftp://{SECRETS[3]}", "headers": {}},
        {"name": "c", "type": "http", "url": "https://x.example",
         "headers": {"A": f"{SECRETS[1]}\n"}},
        {"name": "d", "type": "http", "url": "https://x.example",
         "oauth": {"client_id": SECRETS[2], "client_secret": 5}},
        {"name": "e", "type": "stdio", "command": SECRETS[4], "args": [SECRETS[5], 1]},
    ]  # fmt: skip
    for entry in bad:
        with pytest.raises(McpConfigError) as info:
            parse({"servers": [entry]})
        assert_no_secrets(str(info.value))


def test_duplicate_names_are_ambiguous() -> None:
    with pytest.raises(McpConfigError, match=r"servers\[0\] and servers\[2\] are both named"):
        parse({"servers": [STDIO, HTTP, {**HTTP, "name": "s"}]})


def test_names_are_case_sensitive() -> None:
    assert len(parse({"servers": [STDIO, {**STDIO, "name": "S"}]}).servers) == 2


# -- invalid files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "pattern", "kind"),
    [
        (b'{"servers": [', r"invalid JSON at line 1", "invalid_json"),
        (b"\xff\xfe{}", r"is not UTF-8", "invalid_json"),
        (b'{"a": 1, "a": 2}', r'key "a" appears twice', "invalid_json"),
        (b'{"servers": [{"name": "x", "name": "y"}]}', r'key "name" appears twice', "invalid_json"),
        (b'{"enabled": NaN}', r"out of range", "invalid_json"),
        (b"[" * 100_000 + b"]" * 100_000, r"nested too deeply", "invalid_json"),
        (b'{"n": 1' + b"0" * 5000 + b"}", r"out of range", "invalid_json"),
        (b"[]", r"must hold a JSON object", "invalid"),
        (b'"servers"', r"must hold a JSON object", "invalid"),
        (b'{"servers": {}}', r'"servers" must be a list', "invalid"),
        (b'{"servers": ["git"]}', r"servers\[0\]: must be a JSON object", "invalid"),
        (b'{"enabled": "yes"}', r'"enabled" must be true or false', "invalid"),
        (b'{"enabled_servers": "a"}', r'"enabled_servers" must be a list', "invalid"),
        (b'{"disabled_servers": [1]}', r'"disabled_servers" must be a list', "invalid"),
    ],
)  # fmt: skip
def test_invalid_files(content: bytes, pattern: str, kind: str) -> None:
    with pytest.raises(McpConfigError, match=pattern) as info:
        parse(content)
    assert str(info.value).startswith(str(P)) and info.value.kind == kind
    assert "\n" not in str(info.value)


def test_huge_file_is_refused_unread(ctx: LemonContext, project_file: Path) -> None:
    project_file.parent.mkdir(parents=True)
    with project_file.open("wb") as handle:
        handle.write(b'{"servers": [], "pad": "')
        handle.write(b"x" * MAX_CONFIG_BYTES)
        handle.write(b'"}')
    with pytest.raises(McpConfigError, match="larger than 4 MiB") as info:
        read_file(ctx, "project")
    assert info.value.kind == "too_large" and str(project_file) in str(info.value)


@pytest.mark.parametrize("make", [Path.mkdir, os.mkfifo])  # a FIFO would block a plain open
def test_a_file_that_is_not_regular_is_refused_unread(
    ctx: LemonContext, project_file: Path, make: Any
) -> None:
    project_file.parent.mkdir(parents=True)
    make(project_file)
    with pytest.raises(McpConfigError, match="not a regular file; not read") as info:
        read_file(ctx, "project")
    assert info.value.kind == "unreadable" and str(info.value).startswith(str(project_file))
    with pytest.raises(McpConfigError):  # a writer refuses it too, before taking the lock
        add_server(ctx, ServerSpec(name="x", transport="stdio", command="c"))
    assert not fsio.lock_path(project_file).exists()


def test_invalid_file_with_secrets_does_not_leak(ctx: LemonContext, project_file: Path) -> None:
    servers = secret_servers()
    servers[0]["timeout_ms"] = "soon"
    write_json(project_file, {"servers": servers})
    with pytest.raises(McpConfigError) as info:
        read_file(ctx, "project")
    assert '"timeout_ms"' in str(info.value)
    assert_no_secrets(str(info.value))


@settings(max_examples=300)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_give_a_file_or_a_config_error(content: bytes) -> None:
    try:
        parse(content)
    except McpConfigError as exc:
        assert str(exc).startswith(str(P))


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_entry = st.fixed_dictionaries(
    {},
    optional={k: _json | st.sampled_from(["stdio", "http", "https://x.example", "always"])
              for k in ("name", "type", "command", "url", "args", "env", "headers", "oauth",
                        "timeout_ms", "approval", "tool_approvals", "enabled", "allow_tools")},
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["servers", "enabled", "enabled_servers", "x"]),
                       st.lists(_entry, max_size=3) | _json, max_size=3))  # fmt: skip
def test_arbitrary_json_gives_a_file_or_a_config_error(data: dict[str, Any]) -> None:
    try:
        mcp_file = parse(data)
    except McpConfigError:
        return
    for server in mcp_file.servers:
        assert server.transport in ("stdio", "http", "sse")
        assert (server.command is None) != (server.url is None)


# -- LEMON_MCP_SERVERS ------------------------------------------------------------------------


def test_env_servers(make_ctx: Any) -> None:
    value = json.dumps([
        {"type": "stdio", "command": "npx", "args": ["-y", "x"]},
        {"name": "events", "type": "sse", "url": "http://localhost:3001/sse"},
    ])  # fmt: skip
    servers = env_servers(make_ctx(LEMON_MCP_SERVERS=value))
    assert [s.name for s in servers] == [None, "events"]
    assert {(s.source.provider, s.source.scope, s.source.file) for s in servers} == {
        ("env", "env", None)
    }
    assert env_servers(make_ctx()) == () and env_servers(make_ctx(LEMON_MCP_SERVERS="  ")) == ()


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        ("{", "invalid JSON"),
        ('{"servers": []}', "must be a list of server entries"),
        (json.dumps([{"type": "stdio", "command": "c", "env": {"K": 1}}]), r"entry\[0\]: field \"env\""),
        (json.dumps([{"name": "a", "type": "stdio", "command": "c"}] * 2), "both named"),
    ],
)  # fmt: skip
def test_invalid_env_servers(make_ctx: Any, value: str, pattern: str) -> None:
    with pytest.raises(McpConfigError, match=pattern) as info:
        env_servers(make_ctx(LEMON_MCP_SERVERS=value))
    assert str(info.value).startswith("LEMON_MCP_SERVERS")


def test_load_json_size_cap() -> None:
    with pytest.raises(McpConfigError) as info:
        load_json(b" " * (MAX_CONFIG_BYTES + 1), "X")
    assert info.value.kind == "too_large"


_SECRET = "PLANTED-SECRET-9999"
_secret_values = st.sampled_from(
    [_SECRET, f"ftp://{_SECRET}", f"https://{_SECRET}", [_SECRET], {"K": _SECRET},
     {_SECRET: 1}, {"A": f"{_SECRET}\n"}, 0, [1], {"client_id": _SECRET, "client_secret": 1}]
)  # fmt: skip


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["type", "command", "url", "args", "env", "headers", "oauth", "cwd",
                         "timeout_ms", "approval", "tool_approvals", "allow_tools"]),
        _secret_values | st.sampled_from(["stdio", "http", "sse"]),
        max_size=6,
    )
)  # fmt: skip
def test_no_message_quotes_a_value(entry: dict[str, Any]) -> None:
    try:
        parse({"servers": [{"name": "n", **entry}]})
    except McpConfigError as exc:
        assert _SECRET not in str(exc)


@pytest.mark.parametrize(("sampling", "problem"), [
    ([1], 'field "sampling" must be an object'),
    ({"max_tokens": 0}, 'field "sampling.max_tokens" must be a positive integer'),
    ({"max_tokens": True}, 'field "sampling.max_tokens" must be a positive integer'),
    ({"allowed_models": "gpt"}, 'field "sampling.allowed_models" must be a list of strings'),
    ({"allowed_models": [""]}, "must be a list of non-empty strings"),
    ({"mode": "auto"}, 'field "sampling.mode" must be "reviewed" or "direct"'),
    ({"temperature": 1}, 'field "sampling.temperature" is not a sampling setting'),
])
def test_the_sampling_object_is_validated(sampling: object, problem: str) -> None:
    from lemon_core.mcp.schema import EntryError, parse_entry
    from lemon_core.models import ServerSource

    source = ServerSource("lemon", "project", "/p/.lemon/mcp.json")
    entry = {"name": "s", "type": "stdio", "command": "x", "sampling": sampling}
    with pytest.raises(EntryError) as caught:
        parse_entry(entry, label='server "s"', source=source)
    assert problem in str(caught.value)
    ok = parse_entry({**entry, "sampling": {"max_tokens": 5, "allowed_models": ["m"],
                                            "mode": "direct"}}, label="s", source=source)
    assert ok.extra["sampling"] == {"max_tokens": 5, "allowed_models": ["m"], "mode": "direct"}
