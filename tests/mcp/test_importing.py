"""The import host: ordering, claiming, opt-in, isolation, guarded paths, failures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lemon_core.context import LemonContext
from lemon_core.fsio import read as reading
from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importing import import_servers
from lemon_core.models import McpServer, ServerSource
from lemon_core.plugin_registry import Plugins
from lemon_core.records import ImportFailure, ImportOutcome, ImportRequest, SkippedEntry
from tests.plugins.mcp_importers.workspace import Workspace

ALL_USER = {"LEMON_MCP_EXTERNAL_USER_DISCOVERY": "1"}


def stdio(command: str, **more: Any) -> dict[str, Any]:
    return {"command": command, **more}


def servers(*pairs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"mcpServers": dict(pairs)}


def claimed(outcome: ImportOutcome) -> list[tuple[str | None, str, str]]:
    return [(s.name, s.source.provider, s.source.scope) for s in outcome.servers]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every path the importers try to read."""
    seen: list[Path] = []
    real = reading.read_text

    def spy(path: Path, max_bytes: int = reading.MAX_FILE_BYTES) -> str | None:
        seen.append(Path(path))
        return real(path, max_bytes)

    monkeypatch.setattr(reading, "read_text", spy)
    return seen


# -- ordering and claiming ------------------------------------------------------------------------


def test_provider_order_beats_scope(ws: Workspace) -> None:
    ws.write(".omp/agent/mcp.json", servers(("shared", stdio("omp-user"))), user=True)
    ws.write(".claude/.mcp.json", servers(("shared", stdio("claude-project"))))
    outcome = ws.run()
    assert claimed(outcome) == [("shared", "omp", "user")]
    assert outcome.servers[0].command == "omp-user"
    shadowed = SkippedEntry("shared", "claude", "project", str(ws.proj / ".claude/.mcp.json"),
                            "shadowed")  # fmt: skip
    assert outcome.skipped == (shadowed,)  # dropped whole, and reported


def test_project_files_before_user_files_inside_a_provider(ws: Workspace) -> None:
    ws.write(".claude.json", servers(("a", stdio("user")), ("u", stdio("user"))), user=True)
    ws.write(".claude/.mcp.json", servers(("a", stdio("project"))))
    outcome = ws.run(**ALL_USER)
    assert claimed(outcome) == [("a", "claude", "project"), ("u", "claude", "user")]


def test_file_order_then_entry_order_and_no_field_merging(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", servers(("b", stdio("first", args=["x"])), ("a", stdio("a1"))))
    ws.write(".omp/.mcp.json", servers(("b", stdio("second", env={"K": "v"})), ("c", stdio("c"))))
    outcome = ws.run()
    assert [s.name for s in outcome.servers] == ["b", "a", "c"]
    b = outcome.servers[0]
    assert (b.command, b.args, dict(b.env)) == ("first", ("x",), {})


def test_the_full_provider_order(ws: Workspace) -> None:
    for tag, rel, key, entry in [
        ("root", "mcp.json", "mcpServers", stdio("root")),
        ("vscode", ".vscode/mcp.json", "servers", stdio("vscode")),
        ("windsurf", ".windsurf/mcp_config.json", "mcpServers", stdio("windsurf")),
        ("cursor", ".cursor/mcp.json", "mcpServers", stdio("cursor")),
        ("opencode", "opencode.json", "mcp", {"type": "local", "command": ["opencode"]}),
        ("gemini", ".gemini/settings.json", "mcpServers", stdio("gemini")),
        ("claude", ".claude/.mcp.json", "mcpServers", stdio("claude")),
        ("omp", ".omp/mcp.json", "mcpServers", stdio("omp")),
    ]:
        ws.write(rel, {key: {"same": entry, f"only-{tag}": entry}})
    ws.write(
        ".codex/config.toml",
        '[mcp_servers.same]\ncommand = "codex"\n[mcp_servers.only-codex]\ncommand = "codex"\n',
    )
    outcome = ws.run()
    assert outcome.errors == ()
    assert outcome.servers[0].name == "same" and outcome.servers[0].command == "omp"
    providers = [s.source.provider for s in outcome.servers]
    assert providers == [
        "omp",
        "omp",
        "claude",
        "codex",
        "gemini",
        "opencode",
        "cursor",
        "windsurf",
        "vscode",
        "root",
    ]


def test_skipped_entries_do_not_claim_the_name(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", servers(("dup", {"command": "x", "url": "https://e.test"})))
    ws.write(".claude/.mcp.json", servers(("dup", stdio("claude"))))
    outcome = ws.run()
    assert claimed(outcome) == [("dup", "claude", "project")]
    assert outcome.skipped == (
        SkippedEntry("dup", "omp", "project", str(ws.proj / ".omp/mcp.json"), "command_and_url",
                     0),
    )


def test_a_disabled_entry_claims_its_name(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", servers(("off", stdio("omp", enabled=False))))
    ws.write(".claude/.mcp.json", servers(("off", stdio("claude"))))
    outcome = ws.run()
    assert [(s.name, s.command, s.enabled) for s in outcome.servers] == [("off", "omp", False)]


def test_a_malformed_file_is_reported_once_and_the_rest_still_imports(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", '{"mcpServers": {"a": {"command": "x"}')
    ws.write(".claude/.mcp.json", servers(("b", stdio("y"))))
    outcome = ws.run()
    assert [s.name for s in outcome.servers] == ["b"]
    assert len(outcome.errors) == 1
    error = outcome.errors[0]
    assert (error.provider, error.scope, error.kind) == ("omp", "project", "parse")
    assert error.file == str(ws.proj / ".omp/mcp.json")


def test_only_the_requesting_directory_is_searched(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", servers(("parent", stdio("x"))))
    child = ws.proj / "sub"
    child.mkdir()
    assert ws.run(cwd=child).servers == ()


# -- opt-in -------------------------------------------------------------------------------------


def write_every_user_file(ws: Workspace, content: str | dict[str, Any]) -> None:
    for rel in [
        ".claude.json",
        ".claude/mcp.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".config/opencode/opencode.json",
        ".config/opencode/opencode.jsonc",
        ".cursor/mcp.json",
        ".codeium/windsurf/mcp_config.json",
    ]:
        ws.write(rel, content, user=True)


def test_user_files_other_than_omp_are_never_read_without_opt_in(
    ws: Workspace, reads: list[Path]
) -> None:
    write_every_user_file(ws, "{ this is not valid in any format")
    (ws.home / ".claude.json").unlink()
    (ws.home / ".claude.json").mkdir()  # not even a file: reading it would be an error
    ws.write(".omp/agent/mcp.json", servers(("omp-user", stdio("x"))), user=True)
    outcome = ws.run()
    assert outcome.errors == () and outcome.skipped == ()
    assert [s.name for s in outcome.servers] == ["omp-user"]
    assert all(not path.is_relative_to(ws.home) or ".omp" in path.parts for path in reads)


def test_opt_in_all_reads_every_user_file(ws: Workspace) -> None:
    write_every_user_file(ws, "{ broken")
    outcome = ws.run(**ALL_USER)
    providers = {error.provider for error in outcome.errors}
    assert providers == {"claude", "codex", "gemini", "opencode", "cursor", "windsurf"}
    assert {error.scope for error in outcome.errors} == {"user"}


def test_opt_in_by_provider_list(ws: Workspace) -> None:
    write_every_user_file(ws, "{ broken")
    outcome = ws.run(LEMON_MCP_EXTERNAL_USER_DISCOVERY=" Codex , gemini")
    assert {error.provider for error in outcome.errors} == {"codex", "gemini"}


@pytest.mark.parametrize("value", ["0", "false", "", "nonsense"])
def test_other_values_opt_nothing_in(ws: Workspace, value: str) -> None:
    write_every_user_file(ws, "{ broken")
    assert ws.run(LEMON_MCP_EXTERNAL_USER_DISCOVERY=value).errors == ()


def test_claude_config_dir_opts_in_claude_only(ws: Workspace, tmp_path: Path) -> None:
    write_every_user_file(ws, "{ broken")
    config = tmp_path / "claude-config"
    config.mkdir()
    (config / ".claude.json").write_text('{"mcpServers": {"c": {"command": "x"}}}')
    outcome = ws.run(CLAUDE_CONFIG_DIR=str(config))
    assert outcome.errors == ()
    assert claimed(outcome) == [("c", "claude", "user")]
    assert outcome.servers[0].source.file == str(config / ".claude.json")


def test_discovery_off_imports_nothing_and_reads_nothing(ws: Workspace, reads: list[Path]) -> None:
    ws.write(".omp/mcp.json", "{ broken")
    ws.write(".claude/.mcp.json", servers(("a", stdio("x"))))
    assert ws.run(LEMON_MCP_EXTERNAL_DISCOVERY="0", **ALL_USER) == ImportOutcome()
    assert reads == []


def test_discovery_on_by_default_and_with_1(ws: Workspace) -> None:
    ws.write(".claude/.mcp.json", servers(("a", stdio("x"))))
    assert len(ws.run().servers) == len(ws.run(LEMON_MCP_EXTERNAL_DISCOVERY="1").servers) == 1


# -- isolation and the discovery home --------------------------------------------------------------


@pytest.mark.parametrize("override", ["LEMON_AGENT_DIR", "LEMON_CLAUDE_SKILLS_DIR"])
def test_an_isolated_runtime_reads_no_user_file(
    ws: Workspace, tmp_path: Path, override: str, reads: list[Path]
) -> None:
    ws.write(".omp/agent/mcp.json", servers(("omp-user", stdio("x"))), user=True)
    write_every_user_file(ws, "{ broken")
    ws.write(".claude/.mcp.json", servers(("project", stdio("x"))))
    outcome = ws.run(**{override: str(tmp_path / "agent")}, **ALL_USER)
    assert outcome.errors == ()
    assert [s.name for s in outcome.servers] == ["project"]
    assert not any(path.is_relative_to(ws.home) for path in reads)


def test_a_discovery_home_brings_user_files_back_when_isolated(
    ws: Workspace, tmp_path: Path
) -> None:
    other = tmp_path / "other-home"
    (other / ".omp/agent").mkdir(parents=True)
    (other / ".omp/agent/mcp.json").write_text('{"mcpServers": {"o": {"command": "x"}}}')
    ws.write(".omp/agent/mcp.json", servers(("real-home", stdio("x"))), user=True)
    outcome = ws.run(LEMON_AGENT_DIR=str(tmp_path / "agent"), LEMON_MCP_DISCOVERY_HOME=str(other))
    assert claimed(outcome) == [("o", "omp", "user")]


def test_a_relative_home_reads_no_user_file(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # HOME=relhome, run inside the project: "user" files would be the project's own files.
    monkeypatch.chdir(ws.proj)
    planted = ws.proj / "relhome/.omp/agent"
    planted.mkdir(parents=True)
    (planted / "mcp.json").write_text('{"mcpServers": {"planted": {"command": "x"}}}')
    ws.write(".claude/.mcp.json", servers(("project", stdio("x"))))
    ctx = LemonContext(cwd=ws.proj, home=Path("relhome"), env=ALL_USER, platform="linux")
    assert claimed(import_servers(ctx, ws.plugins)) == [("project", "claude", "project")]
    tilde = ctx.evolve(env={**ALL_USER, "LEMON_MCP_DISCOVERY_HOME": "~"})
    assert claimed(import_servers(tilde, ws.plugins)) == [("project", "claude", "project")]


def test_launching_from_home_does_not_make_user_files_project_files(
    ws: Workspace, reads: list[Path]
) -> None:
    ws.write(".claude/mcp.json", servers(("claude-user", stdio("x"))), user=True)
    ws.write(".gemini/settings.json", servers(("gemini-user", stdio("x"))), user=True)
    ws.write(".cursor/mcp.json", servers(("cursor-user", stdio("x"))), user=True)
    ws.write(".codex/config.toml", '[mcp_servers.codex-user]\ncommand = "x"\n', user=True)
    assert ws.run(cwd=ws.home).servers == ()
    # Opted in, the same files are read, as user files.
    outcome = ws.run(cwd=ws.home, **ALL_USER)
    assert sorted(claimed(outcome)) == [
        ("claude-user", "claude", "user"),
        ("codex-user", "codex", "user"),
        ("cursor-user", "cursor", "user"),
        ("gemini-user", "gemini", "user"),
    ]


def test_a_foreign_config_directory_is_not_a_project(ws: Workspace) -> None:
    config = ws.home / ".config/opencode"
    ws.write(".config/opencode/opencode.json", {"mcp": {"oc": {"command": ["x"]}}}, user=True)
    ws.write(".claude/mcp.json", servers(("cl", stdio("x"))), user=True)
    assert ws.run(cwd=config).servers == ()
    assert ws.run(cwd=ws.home / ".claude").servers == ()  # root mcp.json is ~/.claude/mcp.json


def test_a_project_symlink_to_a_user_file_is_not_read(ws: Workspace) -> None:
    user = ws.write(".cursor/mcp.json", servers(("u", stdio("x"))), user=True)
    (ws.proj / ".mcp.json").symlink_to(user)
    assert ws.run().servers == ()


# -- plugins -------------------------------------------------------------------------------------


@attrs.define
class FakeImporter:
    name: str
    order: int
    result: Any = None
    scopes: list[str] = attrs.field(factory=list)

    def import_scope(self, request: ImportRequest) -> Any:
        self.scopes.append(request.scope)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result(request) if callable(self.result) else self.result


def plugins_of(*importers: FakeImporter) -> Plugins:
    class Plugin:
        @hookimpl
        def lemon_register_mcp_importers(self, register: Any) -> None:
            for importer in importers:
                register(importer)

    plugins = Plugins()
    plugins.register(Plugin(), "inline.fake")
    return plugins


def server(name: str, request: ImportRequest) -> McpServer:
    return McpServer(name, "stdio", ServerSource(request.provider, request.scope, "f"), command="x")


def test_a_failing_importer_is_reported_without_its_message(ws: Workspace) -> None:
    broken = FakeImporter("broken", 5, RuntimeError("token sk-SECRET leaked"))
    good = FakeImporter("good", 6, lambda req: ImportOutcome(servers=(server("g", req),)))
    outcome = import_servers(ws.ctx(), plugins_of(broken, good))
    assert [s.name for s in outcome.servers] == ["g"]
    assert len(outcome.errors) == 1
    failure = outcome.errors[0]
    assert (failure.provider, failure.kind) == ("broken", "plugin")
    assert "RuntimeError" in failure.message and "SECRET" not in failure.message


def test_records_of_the_wrong_type_are_a_plugin_failure(ws: Workspace) -> None:
    odd = FakeImporter("odd", 5, ImportOutcome(servers=("not a server",)))  # type: ignore[arg-type]
    outcome = import_servers(ws.ctx(), plugins_of(odd))
    assert [e.kind for e in outcome.errors] == ["plugin"]


def test_the_host_rechecks_names_from_third_party_importers(ws: Workspace) -> None:
    loose = FakeImporter(
        "loose",
        5,
        lambda req: ImportOutcome(
            servers=(server("bad name", req), server("ok", req), server("ok", req))
        ),
    )
    outcome = import_servers(ws.ctx(), plugins_of(loose))
    assert [s.name for s in outcome.servers] == ["ok"]
    assert [(e.name, e.reason) for e in outcome.skipped] == [
        ("bad name", "invalid_name"),
        ("ok", "shadowed"),
    ]


def test_unnamed_servers_from_third_party_importers_are_skipped(ws: Workspace) -> None:
    unnamed = FakeImporter(
        "unnamed",
        5,
        lambda req: ImportOutcome(
            servers=(McpServer(None, "stdio", ServerSource("unnamed", req.scope), command="x"),)
        ),
    )
    outcome = import_servers(ws.ctx(), plugins_of(unnamed))
    assert outcome.servers == ()
    assert [(e.name, e.reason, e.file) for e in outcome.skipped] == [(None, "invalid_name", "")]


def test_a_failing_opt_in_rule_reads_no_user_file(ws: Workspace) -> None:
    class Flaky(FakeImporter):
        def user_opt_in(self, ctx: Any) -> bool:
            raise ZeroDivisionError

    fake = Flaky("flaky", 5, ImportOutcome())
    import_servers(ws.ctx(), plugins_of(fake))
    assert fake.scopes == ["project"]


def test_third_party_user_scope_needs_the_opt_in(ws: Workspace) -> None:
    fake = FakeImporter("thirdparty", 95, ImportOutcome())
    import_servers(ws.ctx(), plugins_of(fake))
    assert fake.scopes == ["project"]
    import_servers(ws.ctx(LEMON_MCP_EXTERNAL_USER_DISCOVERY="thirdparty"), plugins_of(fake))
    assert fake.scopes == ["project", "project", "user"]


def test_requests_carry_the_home_user_files_live_under(ws: Workspace, tmp_path: Path) -> None:
    homes: list[tuple[str, Path]] = []
    fake = FakeImporter("x", 1, lambda req: homes.append((req.scope, req.home)) or ImportOutcome())
    import_servers(
        ws.ctx(LEMON_MCP_DISCOVERY_HOME=str(tmp_path / "dh"), **ALL_USER), plugins_of(fake)
    )
    assert homes == [("project", ws.home), ("user", tmp_path / "dh")]


def test_records_are_frozen_and_hashable() -> None:
    entry = SkippedEntry("n", "omp", "project", "f", "invalid_name")
    failure = ImportFailure("omp", "user", "f", "parse", "m")
    outcome = ImportOutcome([], [entry], [failure])  # lists become tuples
    assert outcome.skipped == (entry,) and hash(outcome)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        entry.reason = "x"  # type: ignore[misc]


def test_default_plugins_are_loaded_when_none_are_given(ws: Workspace) -> None:
    ws.write(".omp/mcp.json", servers(("a", stdio("x"))))
    ctx = ws.ctx(LEMON_BUILTIN_PLUGINS_ONLY="1")
    assert [s.name for s in import_servers(ctx).servers] == ["a"]


# -- robustness ------------------------------------------------------------------------------------

#: (path, user file?) of every provider; user files are read with the opt-in.
FILES = [
    (".omp/mcp.json", False),
    (".omp/agent/.mcp.json", True),
    (".claude/.mcp.json", False),
    (".claude.json", True),
    (".codex/config.toml", False),
    (".gemini/settings.json", False),
    ("opencode.jsonc", False),
    (".config/opencode/opencode.json", True),
    (".cursor/mcp.json", False),
    (".codeium/windsurf/mcp_config.json", True),
    (".vscode/mcp.json", False),
    ("mcp.json", False),
]
SERVERS_KEY = {"opencode.jsonc": "mcp", ".config/opencode/opencode.json": "mcp",
               ".vscode/mcp.json": "servers"}  # fmt: skip

SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)
FIELDS = st.sampled_from(
    ["type", "command", "args", "env", "cwd", "url", "headers", "httpUrl", "serverUrl", "timeout",
     "enabled", "disabled", "environment", "includeTools", "excludeTools", "disabledTools",
     "oauth", "env_vars", "http_headers", "env_http_headers", "bearer_token_env_var",
     "tool_timeout_sec", "startup_timeout_sec", "enabled_tools", "disabled_tools"]
)  # fmt: skip
SHORT = st.text(max_size=6)
PLAUSIBLE = st.fixed_dictionaries(
    {},
    optional={
        "command": st.text(min_size=1, max_size=6) | st.lists(SHORT, max_size=3),
        "url": st.just("https://e.test/${TOKEN}"),
        "args": st.lists(SHORT, max_size=3),
        "env": st.dictionaries(SHORT, SHORT, max_size=2),
        "timeout": st.integers(0, 10**6),
        "tool_timeout_sec": st.floats(0, 1000),
        "enabled": st.booleans(),
        "type": st.sampled_from(["stdio", "http", "sse", "local", "remote"]),
    },
)
ENTRY = PLAUSIBLE | st.dictionaries(FIELDS, JSON, max_size=6) | JSON
NAMES = st.text(max_size=10) | st.sampled_from(["a", "b", "ok-name"])


def toml_value(value: Any) -> str:
    """A TOML spelling of ``value`` (None becomes an empty inline table)."""
    if value is None:
        return "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "nan" if value != value else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    pairs = (f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items())
    return "{" + ", ".join(pairs) + "}"


def write_entries(ws: Workspace, rel: str, user: bool, entries: dict[str, Any]) -> Path:
    if rel.endswith(".toml"):
        body = "".join(
            f"[mcp_servers.{toml_value(name)}]\n"
            + "".join(f"{toml_value(k)} = {toml_value(v)}\n" for k, v in entry.items())
            if isinstance(entry, dict)
            else f"mcp_servers.{toml_value(name)} = {toml_value(entry)}\n"
            for name, entry in entries.items()
        )
        return ws.write(rel, body, user=user)
    return ws.write(rel, {SERVERS_KEY.get(rel, "mcpServers"): entries}, user=user)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(FILES), st.binary(max_size=600))
def test_arbitrary_bytes_never_raise(ws: Workspace, file: tuple[str, bool], data: bytes) -> None:
    rel, user = file
    path = ws.write(rel, data, user=user)
    try:
        outcome = ws.run(**ALL_USER)
    finally:
        path.unlink()
    assert isinstance(outcome, ImportOutcome)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(FILES), st.dictionaries(NAMES, ENTRY, max_size=4))
def test_arbitrary_entries_never_raise(
    ws: Workspace, file: tuple[str, bool], entries: dict[str, Any]
) -> None:
    rel, user = file
    path = write_entries(ws, rel, user, entries)
    try:
        outcome = ws.run(**ALL_USER, TOKEN="t")
    finally:
        path.unlink()
    for imported in outcome.servers:
        assert imported.transport in ("stdio", "http", "sse")
        assert (imported.command is None) != (imported.url is None)
        assert all(isinstance(arg, str) for arg in imported.args)


def test_unread_user_files_are_counted_with_how_to_opt_in(
        make_ctx: Any, home: Path, tmp_path: Path) -> None:
    """Issue 23 §5: the user-level files of other tools that exist and were not read."""
    from lemon_core.mcp.importing import opt_in_hint, unread_user_files

    (home / ".claude.json").write_text(json.dumps({"mcpServers": {}}))
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("")
    plain = make_ctx()
    unread = unread_user_files(plain)
    assert sorted({(u.provider, u.reason) for u in unread}) == \
        [("claude", "not_opted_in"), ("codex", "not_opted_in")]
    assert len(unread) == 2  # one record per file
    assert opt_in_hint(unread) == \
        "set LEMON_MCP_EXTERNAL_USER_DISCOVERY=claude,codex (or 1 for every tool)"
    assert [u.provider for u in unread_user_files(
        make_ctx(LEMON_MCP_EXTERNAL_USER_DISCOVERY="claude"))] == ["codex"]
    assert unread_user_files(make_ctx(LEMON_MCP_EXTERNAL_USER_DISCOVERY="1")) == ()
    assert unread_user_files(make_ctx(LEMON_MCP_EXTERNAL_DISCOVERY="0")) == ()
    isolated = unread_user_files(make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent")))
    assert {u.reason for u in isolated} == {"isolated"}
    assert "LEMON_MCP_DISCOVERY_HOME=~" in opt_in_hint(isolated)
