"""``lemon mcp …`` end to end, in-process, with a fake HOME and LEMON_AGENT_DIR.

Every run (``lemon.run``) checks that no planted secret appears in its stdout or stderr unless
the command line has ``--reveal``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from lemon_core.cli import main
from lemon_core.mcp.views import REVEALED_FIELDS
from tests.mcp.support import (
    ARG_SECRET,
    CMD_SECRET,
    ENV_SECRET,
    HEADER_SECRET,
    OAUTH_SECRET,
    SECRETS,
    URL_SECRET,
    assert_no_secrets,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@attrs.frozen
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def clean(self) -> Result:
        """Assert no secret leaked; return self for chaining."""
        assert_no_secrets(self.out, self.err)
        return self


@attrs.frozen
class Env:
    project: Path
    agent: Path
    run: Callable[..., Result]

    @property
    def project_file(self) -> Path:
        return self.project / ".lemon" / "mcp.json"

    @property
    def global_file(self) -> Path:
        return self.agent / "mcp.json"


@pytest.fixture
def lemon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Env:
    home, agent, project = tmp_path / "home", tmp_path / "agent", tmp_path / "project"
    for path in (home, project):
        path.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_AGENT_DIR", str(agent))
    monkeypatch.chdir(project)

    def run(*argv: str) -> Result:
        capsys.readouterr()
        try:
            main(["mcp", *argv])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        result = Result(code, captured.out, captured.err)
        return result if "--reveal" in argv else result.clean()  # every run is checked

    return Env(project, agent, run)


def one_line_error(result: Result, code: int, *fragments: str) -> None:
    assert result.code == code, result
    assert (
        result.err.startswith("lemon: ") or result.err.startswith("Usage:") or "Error" in result.err
    )
    assert "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in result.err, result.err


# -- add --------------------------------------------------------------------------------------


def test_spec_examples(lemon: Env) -> None:
    r = lemon.run("add", "filesystem", "--stdio", "npx", "--", "-y",
                  "@modelcontextprotocol/server-filesystem", ".").clean()  # fmt: skip
    assert r.code == 0 and "filesystem" in r.out
    r = lemon.run("add", "git", "--stdio", "uvx", "--approval", "always", "--tool-approval",
                  "git_status=never", "--", "mcp-server-git", "--repository", ".").clean()  # fmt: skip
    assert r.code == 0
    r = lemon.run("add", "remote", "--http", f"https://example.com/mcp?{URL_SECRET}",
                  "--header", f"Authorization=Bearer {HEADER_SECRET}", "--global").clean()  # fmt: skip
    assert r.code == 0
    r = lemon.run("add", "local", "--stdio", CMD_SECRET, "--env", f"API_KEY={ENV_SECRET}",
                  "--", "--server-option", ARG_SECRET).clean()  # fmt: skip
    assert r.code == 0
    project = json.loads(lemon.project_file.read_text())
    assert [s["name"] for s in project["servers"]] == ["filesystem", "git", "local"]
    assert project["servers"][0]["args"] == ["-y", "@modelcontextprotocol/server-filesystem", "."]
    assert project["servers"][1]["tool_approvals"] == {"git_status": "never"}
    assert project["servers"][2] == {"name": "local", "type": "stdio", "command": CMD_SECRET,
                                     "args": ["--server-option", ARG_SECRET],
                                     "env": {"API_KEY": ENV_SECRET}, "approval": "always"}  # fmt: skip
    remote = json.loads(lemon.global_file.read_text())["servers"][0]
    assert remote["headers"] == {"Authorization": f"Bearer {HEADER_SECRET}"}
    assert stat.S_IMODE(lemon.project_file.stat().st_mode) == 0o600
    r = lemon.run("add", "git", "--stdio", "uvx", "--replace", "--", "mcp-server-git").clean()
    assert r.code == 0 and "Replaced" in r.out


def test_add_json_output(lemon: Env) -> None:
    r = lemon.run("add", "api", "--sse", f"https://{URL_SECRET}.example/sse", "--approval", "never",
                  "--json").clean()  # fmt: skip
    assert r.json() == {"action": "added", "name": "api", "transport": "sse", "scope": "project",
                        "file": str(lemon.project_file), "changed": True, "notes": []}  # fmt: skip
    assert json.loads(lemon.project_file.read_text())["servers"][0]["approval"] == "never"


def test_add_cwd_option(lemon: Env, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    assert lemon.run("add", "x", "--stdio", "c", "--cwd", str(other)).clean().code == 0
    assert (other / ".lemon" / "mcp.json").exists() and not lemon.project_file.exists()
    r = lemon.run("add", "x", "--stdio", "c", "--cwd", str(tmp_path / "missing"))
    one_line_error(r, 2, "does not exist")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["bad name", "--stdio", "c"], "invalid server name"),
        (["-x", "--stdio", "c"], ""),
        (["x"], "choose exactly one transport"),
        (["x", "--stdio", "c", "--http", "https://a.example"], "choose exactly one transport"),
        (["x", "--http", f"https://a.example/{URL_SECRET}", "--env", f"K={ENV_SECRET}"], "--env applies only"),
        (["x", "--sse", "https://a.example", "--", ARG_SECRET], "apply only to --stdio"),
        (["x", "--stdio", "c", "--header", f"Authorization={HEADER_SECRET}"], "--header applies only"),
        (["x", "--http", f"ftp://{URL_SECRET}"], "--http needs an http"),
        (["x", "--stdio", "c", "--env", ENV_SECRET], "--env value #1 must look like KEY=VALUE"),
        (["x", "--stdio", "c", "--env", f"={ENV_SECRET}"], "--env value #1"),
        (["x", "--http", "https://a.example", "--header", f"Bad Name={HEADER_SECRET}"], "--header needs"),
        (["x", "--stdio", "c", "--approval", "sometimes"], "--approval must be always or never"),
        (["x", "--stdio", "c", "--tool-approval", "t=maybe"], "--tool-approval"),
        (["x", "--stdio", "c", "--tool-approval", "novalue"], "--tool-approval value #1"),
    ],
)  # fmt: skip
def test_add_usage_errors_exit_2(lemon: Env, argv: list[str], fragment: str) -> None:
    r = lemon.run("add", *argv).clean()
    one_line_error(r, 2, fragment)
    assert not lemon.project_file.exists()


def test_add_refuses_existing_name_with_exit_1(lemon: Env) -> None:
    lemon.run("add", "git", "--stdio", "c", "--env", f"K={ENV_SECRET}")
    before = lemon.project_file.read_bytes()
    r = lemon.run("add", "git", "--stdio", CMD_SECRET).clean()
    one_line_error(r, 1, "already exists", "--replace")
    assert r.err.count("\n") == 1
    assert lemon.project_file.read_bytes() == before


def test_replace_keeps_credentials_and_changes_transport(lemon: Env) -> None:
    lemon.run("add", "s", "--stdio", "c", "--env", f"A={ENV_SECRET}", "--", "x")
    lemon.run("add", "s", "--stdio", "d", "--env", "B=2", "--replace").clean()
    entry = json.loads(lemon.project_file.read_text())["servers"][0]
    assert (
        entry["env"] == {"A": ENV_SECRET, "B": "2"}
        and entry["args"] == []
        and entry["command"] == "d"
    )
    lemon.run("add", "s", "--http", "https://a.example", "--replace").clean()
    entry = json.loads(lemon.project_file.read_text())["servers"][0]
    assert entry == {"name": "s", "type": "http", "url": "https://a.example", "approval": "always"}


# -- list -------------------------------------------------------------------------------------


def _secret_file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "servers": [
            {"name": "local", "type": "stdio", "command": CMD_SECRET, "args": [ARG_SECRET],
             "env": {"K": ENV_SECRET}, "tool_approvals": {"t": "never"}, "x-ext": ENV_SECRET},
            {"name": "remote", "type": "http", "url": f"https://{URL_SECRET}.example",
             "headers": {"Authorization": HEADER_SECRET},
             "oauth": {"client_id": "c", "client_secret": OAUTH_SECRET}},
            {"type": "sse", "url": f"https://legacy.example/{URL_SECRET}"},
        ],
        "disabled_servers": ["remote"],
    }))  # fmt: skip


def test_list_one_file_is_redacted(lemon: Env) -> None:
    _secret_file(lemon.project_file)
    r = lemon.run("list").clean()
    assert r.code == 0
    assert "local" in r.out and "remote" in r.out and "(unnamed)" in r.out
    assert "Disabled by name: remote" in r.out
    data = lemon.run("list", "--json").clean().json()
    assert [(s["name"], s["enabled"], s["env_count"], s["header_count"], s["tool_approval_count"])
            for s in data["servers"]] == [("local", True, 1, 0, 1), ("remote", False, 0, 1, 0),
                                          (None, True, 0, 0, 0)]  # fmt: skip
    assert data["file"] == str(lemon.project_file)


def test_list_reveal_warns_and_shows_everything(lemon: Env) -> None:
    _secret_file(lemon.project_file)
    r = lemon.run("list", "--reveal")
    assert r.code == 0 and "warning: --reveal" in r.err
    for secret in SECRETS:
        assert secret in r.out
    r = lemon.run("list", "--all", "--reveal", "--json")
    data = r.json()
    assert data["effective"][0]["env"] == {"K": ENV_SECRET} and "warning" in r.err


def test_list_global_and_missing_files(lemon: Env) -> None:
    r = lemon.run("list").clean()
    assert r.code == 0 and "does not exist" in r.out
    _secret_file(lemon.global_file)
    data = lemon.run("list", "--global", "--json").clean().json()
    assert data["scope"] == "global" and len(data["servers"]) == 3


def test_list_all_json_contract(
    lemon: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _secret_file(lemon.global_file)
    lemon.run("add", "local", "--stdio", "mine")
    lemon.run("disable", "envsrv")
    monkeypatch.setenv(
        "LEMON_MCP_SERVERS",
        json.dumps(
            [{"name": "envsrv", "type": "stdio", "command": CMD_SECRET, "env": {"A": ENV_SECRET}}]
        ),
    )
    (lemon.project / ".cursor").mkdir()
    (lemon.project / ".cursor" / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "both": {"command": "x", "url": "https://b.example"},
                    "cursed": {
                        "url": f"https://c.example/{URL_SECRET}",
                        "headers": {"A": HEADER_SECRET},
                    },
                }
            }
        )
    )
    (lemon.project / ".gemini").mkdir()
    (lemon.project / ".gemini" / "settings.json").write_text("{ not json " + ENV_SECRET)
    r = lemon.run("list", "--all", "--json").clean()
    assert r.code == 0
    data = r.json()
    assert set(data) >= {"effective", "skipped", "errors"}
    by_name = {s["name"]: s for s in data["effective"]}
    for server in data["effective"]:
        assert set(server) >= {
            "name",
            "transport",
            "enabled",
            "source",
            "env_count",
            "header_count",
        }
        assert set(server["source"]) == {"provider", "scope", "file"}
        assert server["transport"] in ("stdio", "http", "sse")
        assert not set(server) & {"command", "args", "env", "url", "headers"}
    assert by_name["local"]["source"]["scope"] == "project"
    assert by_name["remote"]["source"] == {"provider": "lemon", "scope": "global",
                                           "file": str(lemon.global_file)}  # fmt: skip
    assert by_name["remote"]["enabled"] is False
    assert (
        by_name["envsrv"]["source"]["provider"] == "env" and by_name["envsrv"]["enabled"] is False
    )
    skipped = {(s["name"], s["reason"]) for s in data["skipped"]}
    assert ("local", "shadowed") in skipped
    for item in data["skipped"]:
        assert set(item) == {"name", "provider", "scope", "file", "reason", "index"}
    for error in data["errors"]:
        assert set(error) == {"provider", "scope", "file", "kind", "message"}
    assert by_name["cursed"]["source"]["provider"] == "cursor"
    assert by_name["cursed"]["header_count"] == 1
    assert ("both", "command_and_url") in skipped
    assert [(e["provider"], e["kind"]) for e in data["errors"]] == [("gemini", "parse")]
    human = lemon.run("list", "--all").clean()
    assert "lemon:project" in human.out and "env:env" in human.out
    assert "skipped local" in human.out


#: The keys of a SERVER in ``list --all --json``, exactly; ``--reveal`` adds REVEALED_FIELDS.
SERVER_KEYS = {"name", "transport", "enabled", "source", "env_count", "header_count",
               "tool_approval_count", "approval", "state", "trusted"}  # fmt: skip
#: What the issue's contract promises ``--reveal`` adds.
CONTRACT_REVEALED = {"command", "args", "env", "cwd", "url", "headers", "timeout_ms",
                     "allow_tools", "block_tools"}  # fmt: skip


def test_list_all_json_keys_exactly(lemon: Env) -> None:
    _secret_file(lemon.project_file)
    data = lemon.run("list", "--all", "--json").clean().json()
    assert set(data) == {"effective", "skipped", "errors", "scope", "mcp_enabled",
                         "unread_user_files"}
    assert data["effective"] and all(set(s) == SERVER_KEYS for s in data["effective"])
    assert all(set(s["source"]) == {"provider", "scope", "file"} for s in data["effective"])
    revealed = lemon.run("list", "--all", "--json", "--reveal").json()
    assert CONTRACT_REVEALED <= set(REVEALED_FIELDS)
    assert all(set(s) == SERVER_KEYS | set(REVEALED_FIELDS) for s in revealed["effective"])


#: Values that reach imported entries from the environment or a referenced file.
EXPANDED, CODEX_TOKEN, OC_ENV, OC_FILE = ("sk-EXPANDED-7777", "sk-CODEX-BEARER-8888",
                                          "sk-OPENCODE-ENV-9999", "sk-OPENCODE-FILE-0000")  # fmt: skip
AUTH = {"clientId": "c", "clientSecret": OAUTH_SECRET}


def _every_provider(project: Path, home: Path) -> None:
    """One server per provider, each holding secrets; every auth block holds OAUTH_SECRET."""
    files: dict[str, Any] = {
        ".omp/mcp.json": {"mcpServers": {"omp-srv": {
            "command": "x", "env": {"K": ENV_SECRET}, "auth": {"clientSecret": OAUTH_SECRET},
            "oauth": AUTH}}},
        ".claude/.mcp.json": {"mcpServers": {"claude-srv": {
            "type": "http", "url": f"https://{URL_SECRET}.example/mcp",
            "headers": {"Authorization": "Bearer ${EXPANDED}"}, "oauth": AUTH,
            "headersHelper": f"echo {OAUTH_SECRET}"}}},
        ".gemini/settings.json": {"mcpServers": {"gemini-srv": {
            "httpUrl": "https://g.example/mcp", "headers": {"X-Key": HEADER_SECRET},
            "oauth": AUTH, "targetServiceAccount": OAUTH_SECRET}}},
        ".cursor/mcp.json": {"mcpServers": {"cursor-srv": {
            "command": CMD_SECRET, "auth": {"CLIENT_SECRET": OAUTH_SECRET}}}},
        ".windsurf/mcp_config.json": {"mcpServers": {"windsurf-srv": {
            "serverUrl": f"https://w.example/{URL_SECRET}"}}},
        ".vscode/mcp.json": {"servers": {"vscode-srv": {
            "type": "stdio", "command": "x", "args": [ARG_SECRET]}}},
        ".mcp.json": {"mcpServers": {"root-srv": {"command": "x", "args": ["--k=${EXPANDED}"]}}},
    }  # fmt: skip
    for rel, data in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(json.dumps(data))
    (project / ".codex").mkdir()
    (project / ".codex/config.toml").write_text(
        '[mcp_servers.codex-srv]\nurl = "https://c.example/mcp"\n'
        f'bearer_token_env_var = "CODEX_TOKEN"\nbearer_token = "{OAUTH_SECRET}"\n'
        f'scopes = ["{OAUTH_SECRET}"]\noauth_resource = "https://{OAUTH_SECRET}.example"\n'
    )
    (project / "token.txt").write_text(f"{OC_FILE}\n")
    (project / "opencode.jsonc").write_text(
        '{"mcp": {"opencode-srv": {"type": "remote", "url": "https://o.example", // remote\n'
        '  "headers": {"A": "{env:OC_KEY}", "B": "{file:token.txt}"},\n'
        f'  "oauth": {{"clientId": "c", "clientSecret": "{OAUTH_SECRET}"}},}}}}}}\n'
    )
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"mcpServers": {
        "claude-user": {"command": "x", "env": {"T": ENV_SECRET}, "oauth": AUTH}}}}}))  # fmt: skip


def test_every_provider_is_listed_redacted_and_auth_is_never_imported(
    lemon: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _every_provider(lemon.project, tmp_path / "home")
    for name, value in {"EXPANDED": EXPANDED, "CODEX_TOKEN": CODEX_TOKEN, "OC_KEY": OC_ENV,
                        "LEMON_MCP_DISCOVERY_HOME": str(tmp_path / "home"),
                        "LEMON_MCP_EXTERNAL_USER_DISCOVERY": "claude"}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    extra = (EXPANDED, CODEX_TOKEN, OC_ENV, OC_FILE)
    data = lemon.run("list", "--all", "--json").clean().json()
    assert_no_secrets(json.dumps(data), secrets=extra)
    assert data["errors"] == [] and data["skipped"] == []
    assert [(s["name"], s["source"]["provider"], s["source"]["scope"])
            for s in data["effective"]] == [
        ("omp-srv", "omp", "project"), ("claude-srv", "claude", "project"),
        ("claude-user", "claude", "user"), ("codex-srv", "codex", "project"),
        ("gemini-srv", "gemini", "project"), ("opencode-srv", "opencode", "project"),
        ("cursor-srv", "cursor", "project"), ("windsurf-srv", "windsurf", "project"),
        ("vscode-srv", "vscode", "project"), ("root-srv", "root", "project"),
    ]  # fmt: skip
    human = lemon.run("list", "--all").clean()
    assert_no_secrets(human.out, human.err, secrets=extra)
    assert "codex:project" in human.out and "claude:user" in human.out
    revealed = lemon.run("list", "--all", "--json", "--reveal")
    for value in (ENV_SECRET, HEADER_SECRET, URL_SECRET, CMD_SECRET, ARG_SECRET, *extra):
        assert value in revealed.out, value
    assert OAUTH_SECRET not in revealed.out + revealed.err  # auth blocks: never imported
    by_name = {s["name"]: s for s in revealed.json()["effective"]}
    assert by_name["codex-srv"]["headers"] == {"Authorization": f"Bearer {CODEX_TOKEN}"}
    assert by_name["opencode-srv"]["headers"] == {"A": OC_ENV, "B": OC_FILE}
    # enable/disable reach imported names; lemon never edits another tool's file
    foreign = [p for p in (*lemon.project.rglob("*"), tmp_path / "home/.claude.json")
               if p.is_file() and ".lemon" not in p.parts]  # fmt: skip
    before = {path: path.read_bytes() for path in foreign}
    assert lemon.run("disable", "cursor-srv").clean().code == 0
    assert lemon.run("add", "omp-srv", "--stdio", "mine").clean().code == 0
    assert lemon.run("remove", "omp-srv").clean().code == 0
    assert lemon.run("add", "root-srv", "--stdio", "mine").clean().code == 0
    assert {path: path.read_bytes() for path in foreign} == before
    data = lemon.run("list", "--all", "--json").clean().json()
    by_name = {s["name"]: s for s in data["effective"]}
    assert (by_name["cursor-srv"]["enabled"], by_name["cursor-srv"]["state"]) == (False, "project")
    assert by_name["root-srv"]["source"]["provider"] == "lemon"
    assert ("root-srv", "root", "shadowed") in [(i["name"], i["provider"], i["reason"])
                                                for i in data["skipped"]]  # fmt: skip
    monkeypatch.setenv("LEMON_MCP_EXTERNAL_DISCOVERY", "0")
    assert [s["name"] for s in lemon.run("list", "--all", "--json").clean().json()["effective"]] \
        == ["root-srv"]


def test_list_all_global(lemon: Env) -> None:
    lemon.run("add", "p", "--stdio", "c")
    lemon.run("add", "g", "--stdio", "c", "--global")
    data = lemon.run("list", "--all", "--global", "--json").clean().json()
    assert [s["name"] for s in data["effective"]] == ["g"] and data["scope"] == "global"


def test_list_invalid_file_is_one_clean_error(lemon: Env) -> None:
    lemon.project_file.parent.mkdir()
    lemon.project_file.write_text('{"servers": [{"name": "x", "type": "stdio", "command": "'
                                  + CMD_SECRET + '", "env": {"K": ' + json.dumps(ENV_SECRET)
                                  + '}, "args": "' + ARG_SECRET + '"}]}')  # fmt: skip
    r = lemon.run("list").clean()
    one_line_error(r, 1, str(lemon.project_file), '"args"')
    r = lemon.run("list", "--all", "--json").clean()  # the same verdict, the same status
    assert r.code == 1 and r.json()["errors"][0]["provider"] == "lemon"


def _cursor_servers(project: Path, *names: str) -> None:
    (project / ".cursor").mkdir()
    (project / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {name: {"command": CMD_SECRET} for name in names}})
    )


def test_list_all_skips_only_the_invalid_entry_and_keeps_the_lists(lemon: Env) -> None:
    """A server the user disabled in a file with one bad entry stays disabled."""
    lemon.project_file.parent.mkdir()
    lemon.project_file.write_text(json.dumps({
        "servers": [{"name": "ok", "type": "stdio", "command": "c"},
                    {"name": "broken", "type": "stdio", "command": CMD_SECRET,
                     "env": {"K": ENV_SECRET}, "timeout_ms": "soon"}],
        "disabled_servers": ["cur"]}))  # fmt: skip
    _cursor_servers(lemon.project, "cur", "broken", "free")
    data = lemon.run("list", "--all", "--json").clean().json()
    assert [(s["name"], s["source"]["provider"], s["enabled"], s["state"])
            for s in data["effective"]] == [
        ("ok", "lemon", True, "entry"), ("cur", "cursor", False, "project"),
        ("free", "cursor", True, "entry"),
    ]  # fmt: skip
    assert ("broken", "cursor", "shadowed") in [(s["name"], s["provider"], s["reason"])
                                                for s in data["skipped"]]  # fmt: skip
    assert [(e["provider"], e["scope"], e["file"], e["kind"]) for e in data["errors"]] == [
        ("lemon", "project", str(lemon.project_file), "invalid_entry")
    ]
    assert 'servers[1] "broken": field "timeout_ms"' in data["errors"][0]["message"]
    human = lemon.run("list", "--all").clean()
    assert human.code == 1 and "invalid_entry" in human.out and "cannot be used" not in human.out
    assert lemon.run("disable", "free").code == 1  # writers still refuse the invalid file


@pytest.mark.parametrize("global_", [False, True])
def test_list_all_fails_closed_on_an_unusable_file(
    lemon: Env, monkeypatch: pytest.MonkeyPatch, global_: bool
) -> None:
    """A file lemon cannot use might have disabled anything: every server is disabled."""
    broken = lemon.global_file if global_ else lemon.project_file
    if not global_:
        assert lemon.run("add", "g", "--stdio", "c", "--global").code == 0
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text('{"disabled_servers": ["cur"], "servers": [{"env": {"K": "'
                      + ENV_SECRET + '"')  # fmt: skip
    _cursor_servers(lemon.project, "cur", "free")
    monkeypatch.setenv("LEMON_MCP_SERVERS", json.dumps([{"name": "envy", "type": "stdio",
                                                         "command": "c"}]))  # fmt: skip
    argv = ("list", "--all", "--global") if global_ else ("list", "--all")
    data = lemon.run(*argv, "--json").clean().json()
    assert set(data) == {"effective", "skipped", "errors", "scope", "mcp_enabled",
                         "unread_user_files"}
    assert all(set(s) == SERVER_KEYS for s in data["effective"])
    names = ["envy"] if global_ else ["g", "envy", "cur", "free"]
    assert [(s["name"], s["enabled"], s["state"]) for s in data["effective"]] == [
        (name, False, "unreadable") for name in names
    ]
    assert data["mcp_enabled"] is False
    [error] = data["errors"]
    assert (error["provider"], error["file"], error["kind"]) == ("lemon", str(broken),
                                                                 "invalid_json")  # fmt: skip
    assert "invalid JSON at line 1" in error["message"] and "fixed" in error["message"]
    human = lemon.run(*argv).clean()
    assert human.code == 1 and "cannot be used" in human.out
    assert '("enabled": false' not in human.out
    scope = ["--global"] if global_ else []
    one_line_error(lemon.run("enable", "cur", *scope).clean(), 1, str(broken))
    assert ENV_SECRET in broken.read_text()  # untouched


def test_hostile_names_are_escaped(lemon: Env) -> None:
    lemon.project_file.parent.mkdir()
    lemon.project_file.write_text(json.dumps({"disabled_servers": ["\x1b[31mred\u202e"]}))
    r = lemon.run("list").clean()
    assert r.code == 0 and "\x1b" not in r.out and "\u202e" not in r.out
    assert "\\u001b[31mred\\u202e" in r.out


# -- enable, disable, remove ------------------------------------------------------------------


def test_enable_disable_remove(lemon: Env) -> None:
    lemon.run("add", "git", "--stdio", "c", "--env", f"K={ENV_SECRET}")
    r = lemon.run("disable", "git", "--json").clean()
    assert r.code == 0 and r.json()["action"] == "disabled" and r.json()["changed"] is True
    assert json.loads(lemon.project_file.read_text())["disabled_servers"] == ["git"]
    r = lemon.run("disable", "git").clean()
    assert r.code == 0 and "already disabled" in r.out
    r = lemon.run("enable", "github", "--global").clean()
    assert r.code == 0 and "no server named" in r.err
    assert json.loads(lemon.global_file.read_text()) == {"enabled_servers": ["github"]}
    lemon.run("add", "g2", "--stdio", "c", "--global")
    lemon.run("enable", "g2")
    r = lemon.run("disable", "g2", "--global").clean()
    assert "stays enabled" in r.err
    r = lemon.run("remove", "git", "--json").clean()
    assert r.json()["action"] == "removed"
    r = lemon.run("remove", "git").clean()
    one_line_error(r, 1, 'no server named "git"')
    r = lemon.run("remove", "bad/name")
    one_line_error(r, 2, "invalid server name")
    lemon.run("add", "both", "--stdio", "c")
    lemon.run("add", "both", "--stdio", "c", "--global")
    r = lemon.run("remove", "both").clean()
    assert r.code == 0 and "still provided by lemon:global" in r.err


def test_busy_and_stale_locks(lemon: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket
    import subprocess
    import sys

    lemon.run("add", "git", "--stdio", "c")
    lock = lemon.project_file.with_name("mcp.json.lock")
    lock.mkdir()
    (lock / "owner").write_text(f"{os.getpid()}\n{socket.gethostname()}\n")
    monkeypatch.setenv("LEMON_LOCK_TIMEOUT", "0.2")
    r = lemon.run("add", "other", "--stdio", "c").clean()
    one_line_error(r, 1, "busy", str(lock))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    (lock / "owner").write_text(f"{dead}\n{socket.gethostname()}\n")
    r = lemon.run("disable", "git").clean()
    one_line_error(r, 1, "stale lock", f"remove the directory {lock}")
    assert "disabled_servers" not in lemon.project_file.read_text()


def test_help_lists_the_commands(lemon: Env) -> None:
    r = lemon.run("--help")
    assert r.code == 0
    for command in ("add", "list", "enable", "disable", "remove"):
        assert command in r.out
    r = lemon.run("list", "--help")
    assert "--reveal" in r.out and "DEBUGGING" in r.out


def test_list_all_counts_the_user_files_it_did_not_read(lemon: Env,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 §5: how many user-level files of other tools were not read, and the opt-in."""
    home = Path(os.environ["HOME"])
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"c": {"command": "x"}}}))
    monkeypatch.setenv("LEMON_MCP_DISCOVERY_HOME", str(home))
    result = lemon.run("list", "--all").clean()
    assert "1 user-level MCP file of other tools not read (claude); to include them, set " \
        "LEMON_MCP_EXTERNAL_USER_DISCOVERY=claude (or 1 for every tool)" in result.out
    data = lemon.run("list", "--all", "--json").json()["unread_user_files"]
    assert data["count"] == 1 and data["files"] == [
        {"provider": "claude", "file": str(home / ".claude.json"), "reason": "not_opted_in"}]
    monkeypatch.setenv("LEMON_MCP_EXTERNAL_USER_DISCOVERY", "claude")
    result = lemon.run("list", "--all").clean()
    assert "not read" not in result.out and "c " in result.out
