"""The effective set: precedence, claiming, enable/disable state, errors, and redacted views."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.config import read_file
from lemon_core.mcp.effective import SHADOWED, effective_servers
from lemon_core.mcp.views import REVEALED_FIELDS, effective_view, file_view
from lemon_core.models import McpServer, ServerSource
from lemon_core.records import ImportFailure, ImportOutcome, SkippedEntry
from tests.mcp.support import (
    SECRETS,
    assert_no_secrets,
    ctx,
    global_file,
    project_file,
    secret_servers,
    write_json,
)

#: Fixtures defined in tests/mcp/support.py (conftest.py belongs to the importer tests).
FIXTURES = (ctx, global_file, project_file)


def stdio(name: str | None, command: str = "c", **kw: Any) -> dict[str, Any]:
    entry = {"type": "stdio", "command": command, **kw}
    return {"name": name, **entry} if name is not None else entry


def imported(name: str | None, provider: str = "claude", scope: str = "project",
             enabled: bool = True) -> McpServer:  # fmt: skip
    source = ServerSource(provider, scope, f"/somewhere/{provider}-{scope}.json")
    return McpServer(name=name, transport="stdio", source=source, command="x", enabled=enabled)


def outcome(*servers: McpServer, skipped: tuple[SkippedEntry, ...] = (),
            errors: tuple[ImportFailure, ...] = ()) -> ImportOutcome:  # fmt: skip
    return ImportOutcome(servers, skipped, errors)


def summary(effective: Any) -> list[tuple[str | None, str, str, bool]]:
    return [(s.name, s.server.source.provider, s.server.source.scope, s.enabled)
            for s in effective.servers]  # fmt: skip


def with_env(ctx: LemonContext, **env: str) -> LemonContext:
    return ctx.evolve(env={**ctx.env, **env})


def test_precedence_project_global_env_imported(ctx: LemonContext, project_file: Path,
                                                global_file: Path) -> None:  # fmt: skip
    write_json(project_file, {"servers": [stdio("a"), stdio(None, "p-unnamed")]})
    write_json(global_file, {"servers": [stdio("a"), stdio("b"), stdio(None, "g-unnamed")]})
    env = json.dumps([stdio("b"), stdio("c"), stdio(None, "e-unnamed")])
    fake = outcome(imported("c"), imported("d", "codex", "user"), imported(None, "cursor"),
                   skipped=(SkippedEntry("bad name", "gemini", "project", "/g.json", "invalid_name"),),
                   errors=(ImportFailure("codex", "project", "/c.toml", "parse", "bad TOML at line 3"),))  # fmt: skip
    effective = effective_servers(with_env(ctx, LEMON_MCP_SERVERS=env), imported=fake)
    assert summary(effective) == [
        ("a", "lemon", "project", True),
        (None, "lemon", "project", True),
        ("b", "lemon", "global", True),
        (None, "lemon", "global", True),
        ("c", "env", "env", True),
        (None, "env", "env", True),
        ("d", "codex", "user", True),
        (None, "cursor", "project", True),
    ]
    assert effective.get("a").server.source.file == str(project_file)  # type: ignore[union-attr]
    shadowed = [(s.name, s.provider, s.scope, s.reason) for s in effective.skipped]
    assert shadowed == [
        ("bad name", "gemini", "project", "invalid_name"),
        ("a", "lemon", "global", SHADOWED),
        ("b", "env", "env", SHADOWED),
        ("c", "claude", "project", SHADOWED),
    ]
    assert [(e.provider, e.kind) for e in effective.errors] == [("codex", "parse")]


def test_a_disabled_entry_still_claims_its_name(ctx: LemonContext, project_file: Path,
                                                global_file: Path) -> None:  # fmt: skip
    write_json(project_file, {"servers": [stdio("a", enabled=False), stdio("b", disabled=True)]})
    write_json(global_file, {"servers": [stdio("a")]})
    effective = effective_servers(ctx, imported=outcome(imported("b")))
    assert summary(effective) == [
        ("a", "lemon", "project", False),
        ("b", "lemon", "project", False),
    ]
    assert effective.get("a").state == "entry"  # type: ignore[union-attr]


def test_lists_apply_to_every_source(ctx: LemonContext, project_file: Path) -> None:
    write_json(project_file, {"disabled_servers": ["imp", "envy"], "enabled_servers": ["off"]})
    env = json.dumps([stdio("envy")])
    fake = outcome(imported("imp"), imported("off", enabled=False), imported("free"))
    effective = effective_servers(with_env(ctx, LEMON_MCP_SERVERS=env), imported=fake)
    assert {s.name: (s.enabled, s.state) for s in effective.servers} == {
        "envy": (False, "project"), "imp": (False, "project"), "off": (True, "project"),
        "free": (True, "entry"),
    }  # fmt: skip


def test_project_state_overrides_global_and_deny_wins_in_one_file(
    ctx: LemonContext, project_file: Path, global_file: Path
) -> None:
    write_json(global_file, {"servers": [stdio("g1"), stdio("g2", enabled=False), stdio("g3")],
                             "disabled_servers": ["g1", "g3"], "enabled_servers": ["g2", "g3"]})  # fmt: skip
    write_json(project_file, {"enabled_servers": ["g1"]})
    effective = effective_servers(ctx, imported=outcome())
    assert {s.name: (s.enabled, s.state) for s in effective.servers} == {
        "g1": (True, "project"), "g2": (True, "global"), "g3": (False, "global"),
    }  # fmt: skip


def test_global_scope(ctx: LemonContext, project_file: Path, global_file: Path) -> None:
    write_json(project_file, {"servers": [stdio("p")], "disabled_servers": ["g"]})
    write_json(global_file, {"servers": [stdio("g")]})
    fake = outcome(imported("proj-imp"), imported("user-imp", "omp", "user"),
                   skipped=(SkippedEntry("x", "claude", "project", "/f", "no_command_or_url"),
                            SkippedEntry("y", "claude", "user", "/u", "no_command_or_url")),
                   errors=(ImportFailure("codex", "project", "/c", "parse", "m"),))  # fmt: skip
    effective = effective_servers(ctx, scope="global", imported=fake)
    assert effective.scope == "global"
    assert summary(effective) == [("g", "lemon", "global", True), ("user-imp", "omp", "user", True)]
    assert [s.name for s in effective.skipped] == ["y"] and effective.errors == ()


def test_invalid_sources_are_reported_and_the_rest_still_counts(
    ctx: LemonContext, project_file: Path, global_file: Path
) -> None:
    project_file.parent.mkdir(parents=True)
    project_file.write_text('{"servers": [{"name": "a", "type": "stdio", "command": "'
                            + SECRETS[4] + '", "env": {"K": 1}}], "disabled_servers": ["g"]}')  # fmt: skip
    write_json(global_file, {"servers": [stdio("g")]})
    effective = effective_servers(with_env(ctx, LEMON_MCP_SERVERS=f"[{SECRETS[0]}"),
                                  imported=outcome(imported("i")))  # fmt: skip
    # the invalid entry is skipped; its file's disabled_servers still applies
    assert summary(effective) == [("g", "lemon", "global", False), ("i", "claude", "project", True)]
    assert effective.get("g").state == "project"  # type: ignore[union-attr]
    errors = [(e.provider, e.scope, e.file, e.kind) for e in effective.errors]
    assert errors == [("lemon", "project", str(project_file), "invalid_entry"),
                      ("env", "env", None, "invalid_json")]  # fmt: skip
    assert '"env"' in effective.errors[0].message
    assert 'servers[0] "a"' in effective.errors[0].message
    assert_no_secrets(*(e.message for e in effective.errors))


# -- fail closed: a broken lemon file never switches a server on ------------------------------


@pytest.mark.parametrize("where", ["project", "global"])
def test_an_invalid_entry_is_skipped_and_the_rest_of_its_file_applies(
    ctx: LemonContext, project_file: Path, global_file: Path, where: str
) -> None:
    path = project_file if where == "project" else global_file
    bad = stdio("bad", timeout_ms="soon", env={"K": SECRETS[0]})
    write_json(path, {"servers": [stdio("ok"), bad, {"type": "stdio"}, stdio("off", enabled=False)],
                      "disabled_servers": ["cursed"], "enabled_servers": ["off", "later"]})  # fmt: skip
    fake = outcome(imported("cursed", "cursor"), imported("later", enabled=False),
                   imported("free"))  # fmt: skip
    effective = effective_servers(ctx, imported=fake)
    assert effective.mcp_enabled
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [
        ("ok", True, "entry"), ("off", True, where), ("cursed", False, where),
        ("later", True, where), ("free", True, "entry"),
    ]  # fmt: skip
    assert [(e.provider, e.scope, e.file, e.kind) for e in effective.errors] == [
        ("lemon", where, str(path), "invalid_entry"),
        ("lemon", where, str(path), "invalid_entry"),
    ]
    first, second = (e.message for e in effective.errors)
    assert first.startswith(f'{path}: servers[1] "bad": field "timeout_ms"')
    assert second.startswith(f'{path}: servers[2]: field "command"')
    assert_no_secrets(first, second)


def test_the_switch_of_a_file_with_an_invalid_entry_still_applies(
    ctx: LemonContext, project_file: Path
) -> None:
    write_json(project_file, {"enabled": False, "servers": [{"name": "x", "type": "ftp"}]})
    effective = effective_servers(ctx, imported=outcome(imported("i")))
    assert not effective.mcp_enabled
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [("i", False, "off")]


def test_an_invalid_entry_keeps_its_name_from_lower_sources(
    ctx: LemonContext, project_file: Path, global_file: Path
) -> None:
    """Skipping an invalid ``x`` must not let another source's ``x`` run in its place."""
    write_json(project_file, {"servers": [stdio("x", enabled=False, args="not a list"),
                                          stdio("dup"), stdio("dup", "other")]})  # fmt: skip
    write_json(global_file, {"servers": [stdio("x"), stdio("dup"), stdio("g")]})
    env = json.dumps([stdio("x")])
    fake = outcome(imported("x"), imported("dup"))
    effective = effective_servers(with_env(ctx, LEMON_MCP_SERVERS=env), imported=fake)
    assert summary(effective) == [("g", "lemon", "global", True)]
    assert [(s.name, s.provider, s.reason) for s in effective.skipped] == [
        ("x", "lemon", SHADOWED), ("dup", "lemon", SHADOWED), ("x", "env", SHADOWED),
        ("x", "claude", SHADOWED), ("dup", "claude", SHADOWED),
    ]  # fmt: skip
    messages = [e.message for e in effective.errors]
    assert [e.kind for e in effective.errors] == ["invalid_entry", "invalid_entry"]
    assert 'servers[0] "x": field "args"' in messages[0] and '"x"' in messages[0]
    assert "servers[1] and servers[2]" in messages[1] and '"dup"' in messages[1]


UNUSABLE = [
    pytest.param(b'{"disabled_servers": ["cursed"], ', "invalid_json", id="invalid-json"),
    pytest.param(b"\xff{}", "invalid_json", id="not-utf8"),
    pytest.param(b'[{"name": "x"}]', "invalid", id="not-an-object"),
    pytest.param(b'{"servers": {"x": {}}}', "invalid", id="servers-not-a-list"),
    pytest.param(b'{"disabled_servers": "cursed"}', "invalid", id="denylist-not-a-list"),
    pytest.param(b'{"enabled_servers": [1]}', "invalid", id="allowlist-not-names"),
    pytest.param(b'{"enabled": "no"}', "invalid", id="switch-not-a-boolean"),
]


def _break(path: Path, content: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if content == "directory":
        path.mkdir()
    elif content == "too large":
        path.write_bytes(b"{}" + b" " * (4 * 1024 * 1024))
    else:
        assert isinstance(content, bytes)
        path.write_bytes(content)


@pytest.mark.parametrize(
    ("content", "kind"),
    [*UNUSABLE, pytest.param("directory", "unreadable", id="directory"),
     pytest.param("too large", "too_large", id="too-large")],
)  # fmt: skip
@pytest.mark.parametrize("where", ["project", "global"])
def test_an_unusable_file_disables_every_server(
    ctx: LemonContext, project_file: Path, global_file: Path, where: str, content: Any, kind: str
) -> None:
    broken, other = (
        (project_file, global_file) if where == "project" else (global_file, project_file)
    )
    _break(broken, content)
    write_json(other, {"servers": [stdio("mine"), stdio(None, "unnamed")],
                       "enabled_servers": ["cursed"]})  # fmt: skip
    fake = outcome(imported("cursed", "cursor"), imported("free"))
    env = json.dumps([stdio("envy")])
    effective = effective_servers(with_env(ctx, LEMON_MCP_SERVERS=env), imported=fake)
    assert not effective.mcp_enabled
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [
        ("mine", False, "unreadable"), (None, False, "unreadable"), ("envy", False, "unreadable"),
        ("cursed", False, "unreadable"), ("free", False, "unreadable"),
    ]  # fmt: skip
    assert [(e.provider, e.scope, e.file, e.kind) for e in effective.errors] == [
        ("lemon", where, str(broken), kind)
    ]
    message = effective.errors[0].message
    assert message.startswith(str(broken)) and "until" in message and "fixed" in message
    assert "\n" not in message


@pytest.mark.parametrize(("content", "kind"), UNUSABLE)
def test_an_unusable_global_file_disables_the_global_scope(
    ctx: LemonContext, project_file: Path, global_file: Path, content: bytes, kind: str
) -> None:
    _break(global_file, content)
    write_json(project_file, {"servers": [stdio("p")], "enabled_servers": ["u"]})
    fake = outcome(imported("u", "omp", "user"))
    effective = effective_servers(ctx, scope="global", imported=fake)
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [("u", False, "unreadable")]
    assert [(e.scope, e.kind) for e in effective.errors] == [("global", kind)]


def test_a_broken_project_file_does_not_affect_the_global_scope(
    ctx: LemonContext, project_file: Path, global_file: Path
) -> None:
    _break(project_file, b"{broken")
    write_json(global_file, {"servers": [stdio("g")]})
    effective = effective_servers(ctx, scope="global", imported=outcome())
    assert effective.mcp_enabled and effective.errors == ()
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [("g", True, "entry")]


@pytest.mark.parametrize("where", ["project", "global"])
def test_top_level_enabled_false_turns_everything_off(ctx: LemonContext, project_file: Path,
                                                      global_file: Path, where: str) -> None:  # fmt: skip
    path = project_file if where == "project" else global_file
    write_json(path, {"enabled": False, "servers": [stdio("a")], "enabled_servers": ["i"]})
    effective = effective_servers(ctx, imported=outcome(imported("i")))
    assert not effective.mcp_enabled
    assert [(s.name, s.enabled, s.state) for s in effective.servers] == [
        ("a", False, "off"),
        ("i", False, "off"),
    ]


def test_project_enabled_true_overrides_global_false(ctx: LemonContext, project_file: Path,
                                                     global_file: Path) -> None:  # fmt: skip
    write_json(global_file, {"enabled": False})
    write_json(project_file, {"enabled": True})
    assert effective_servers(ctx, imported=outcome()).mcp_enabled
    assert not effective_servers(ctx, scope="global", imported=outcome()).mcp_enabled


def test_lemon_mcp_disabled(ctx: LemonContext) -> None:
    effective = effective_servers(with_env(ctx, LEMON_MCP_DISABLED="1"),
                                  imported=outcome(imported("i")))  # fmt: skip
    assert not effective.mcp_enabled and not effective.servers[0].enabled


# -- views ------------------------------------------------------------------------------------


def test_views_redact_unless_revealed(ctx: LemonContext, project_file: Path) -> None:
    write_json(
        project_file, {"servers": secret_servers() + [{"type": "stdio", "command": "legacy"}]}
    )
    effective = effective_servers(ctx, imported=outcome())
    data = effective_view(effective)
    text = json.dumps(data)
    assert_no_secrets(text)
    assert list(data) == ["effective", "skipped", "errors", "scope", "mcp_enabled"]
    local = data["effective"][0]
    assert local == {
        "name": "local", "transport": "stdio", "enabled": True,
        "source": {"provider": "lemon", "scope": "project", "file": str(project_file)},
        "env_count": 1, "header_count": 0, "tool_approval_count": 1, "approval": "never",
        "state": "entry", "trusted": True,  # no trust callback given: shown as trusted
    }  # fmt: skip
    assert data["effective"][1]["header_count"] == 1 and data["effective"][3]["name"] is None
    revealed = effective_view(effective, reveal=True)
    text = json.dumps(revealed)
    for secret in SECRETS:
        assert secret in text
    assert set(REVEALED_FIELDS) <= set(revealed["effective"][0])
    assert revealed["effective"][0]["env"] == {"API_KEY": SECRETS[0]}


def test_file_view(ctx: LemonContext, project_file: Path) -> None:
    write_json(project_file, {"servers": secret_servers() + [{"type": "sse", "url": "http://l.example/s"}],
                              "disabled_servers": ["remote"], "x-top": SECRETS[0]})  # fmt: skip
    data = file_view(read_file(ctx, "project"))
    assert_no_secrets(json.dumps(data))
    assert [(s["index"], s["name"], s["enabled"]) for s in data["servers"]] == [
        (0, "local", True),
        (1, "remote", False),
        (2, "legacy", True),
        (3, None, True),
    ]
    assert data["disabled_servers"] == ["remote"] and data["exists"] and data["enabled"] is None
    assert SECRETS[0] in json.dumps(file_view(read_file(ctx, "project"), reveal=True))


# -- the real importers -----------------------------------------------------------------------


def test_the_real_import_runs(ctx: LemonContext, project_file: Path) -> None:
    """Without an injected outcome, the real import host runs (for the fixture project)."""
    write_json(project_file, {"servers": [stdio("mine")]})
    write_json(ctx.cwd / ".omp" / "mcp.json",
               {"mcpServers": {"mine": {"command": "shadowed"}, "omp-only": {"command": "o"}}})  # fmt: skip
    effective = effective_servers(ctx)
    assert effective.servers[0].name == "mine"
    assert effective.servers[0].server.source.provider == "lemon"
    assert all(e.provider != "lemon" for e in effective.errors)
    omp = effective.get("omp-only")
    if omp is None:
        pytest.skip("the omp importer is not registered in this installation yet")
    assert omp.server.source.provider == "omp" and omp.server.source.scope == "project"
    assert ("mine", "omp", SHADOWED) in [(s.name, s.provider, s.reason) for s in effective.skipped]


def test_global_scope_user_imports_claim_among_themselves(ctx: LemonContext) -> None:
    """A project import never hides a user-level one from the global scope."""
    write_json(ctx.cwd / ".claude" / ".mcp.json", {"mcpServers": {"x": {"command": "project"}}})
    write_json(ctx.home / ".claude.json", {"mcpServers": {"x": {"command": "user"}}})
    ctx = with_env(ctx, LEMON_MCP_DISCOVERY_HOME=str(ctx.home),
                   LEMON_MCP_EXTERNAL_USER_DISCOVERY="claude")  # fmt: skip
    project = effective_servers(ctx)
    assert [(s.name, s.server.command) for s in project.servers] == [("x", "project")]
    assert [(s.name, s.provider, s.scope, s.reason) for s in project.skipped] == [
        ("x", "claude", "user", SHADOWED)
    ]
    scoped = effective_servers(ctx, scope="global")
    assert [(s.name, s.server.command, s.server.source.scope) for s in scoped.servers] == [
        ("x", "user", "user")
    ]
    assert scoped.skipped == ()
