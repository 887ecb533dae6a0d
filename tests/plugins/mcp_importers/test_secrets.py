"""No importer shows a secret outside ``--reveal``: a value planted in the environment and in
home files, expanded or substituted into every field of every provider's entries (names
included), never reaches ``lemon mcp list`` / ``list --all`` output, table or JSON, stdout or
stderr; ``--reveal`` shows it, which proves it was planted."""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_cli
from tests.plugins.mcp_importers.workspace import Workspace

SECRET = "sk-PLANTED-9999"
FILE_SECRET = "aws_secret_access_key = FILE-PLANTED-8888"
SECRETS = (SECRET, FILE_SECRET, "FILE-PLANTED-8888")


def _mcp_servers(key: str = "mcpServers", url_key: str = "url") -> dict:
    return {key: {
        "local": {"command": "run", "args": ["--token", "${SECRET}"], "env": {"K": "${SECRET}"},
                  "cwd": "/tmp/${SECRET}"},
        "remote": {"type": "http", url_key: "https://h.test/${SECRET}",
                   "headers": {"Authorization": "Bearer ${SECRET}"}},
        "bad-url": {"type": "http", url_key: "${SECRET}url"},
        "bad-header": {"type": "http", url_key: "https://h.test", "headers": {"X": "a\n${SECRET}"}},
    }}  # fmt: skip


CODEX = """
[mcp_servers.local]
command = "run"
env_vars = ["SECRET"]
[mcp_servers.remote]
url = "https://h.test/mcp"
bearer_token_env_var = "SECRET"
env_http_headers = { "X-Key" = "SECRET" }
[mcp_servers.bad-url]
url = "SECRETurl"
"""

OPENCODE = """{
  "mcp": {
    "{file:~/.aws/credentials}": {"type": "local", "command": ["x"]},
    "{env:SECRET}": {"type": "local", "command": ["x"]},
    "x{env:SECRET}": {"type": "remote", "url": "https://h.test"},
    "typed": {"type": "{env:KIND}", "command": ["x"]},
    "local": {"type": "local", "command": ["run", "{env:SECRET}"],
              "environment": {"K": "{file:~/.aws/credentials}"}},
    "remote": {"type": "remote", "url": "https://h.test/{env:SECRET}",
               "headers": {"A": "Bearer {env:SECRET}"}},
    "bad-url": {"type": "remote", "url": "{env:SECRET}url"},
  },
}"""

PROJECT_FILES = {
    "omp": (".omp/mcp.json", json.dumps(_mcp_servers())),
    "claude": (".claude/.mcp.json", json.dumps(_mcp_servers())),
    "codex": (".codex/config.toml", CODEX),
    "gemini": (".gemini/settings.json", json.dumps({"mcpServers": {
        "local": {"command": "run", "args": ["${SECRET}"], "env": {"K": "${SECRET}"}},
        "remote": {"httpUrl": "https://h.test/${SECRET}", "headers": {"A": "${SECRET}"}},
        "bad-url": {"httpUrl": "${SECRET}url"}}})),
    "opencode": ("opencode.json", OPENCODE),
    "cursor": (".cursor/mcp.json", json.dumps(_mcp_servers())),
    "windsurf": (".windsurf/mcp_config.json", json.dumps(_mcp_servers(url_key="serverUrl"))),
    "vscode": (".vscode/mcp.json", json.dumps(_mcp_servers("servers"))),
    "root": ("mcp.json", json.dumps(_mcp_servers())),
}
USER_FILES = {  # read with LEMON_MCP_EXTERNAL_USER_DISCOVERY=1 (omp: always)
    "omp": ".omp/agent/mcp.json",
    "claude": ".claude.json",
    "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json",
    "opencode": ".config/opencode/opencode.json",
    "cursor": ".cursor/mcp.json",
    "windsurf": ".codeium/windsurf/mcp_config.json",
}


def _outputs(ws: Workspace, capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    texts = []
    for argv in (["list", "--all"], ["list", "--all", "--json"], ["list"], ["list", "--json"]):
        code, out, err = run_cli(capsys, "mcp", *argv, *extra, "--cwd", str(ws.proj))
        assert code in (0, 1), err
        texts += [out, err]
    return texts


@pytest.fixture
def planted(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    ws.write(".aws/credentials", f"[default]\n{FILE_SECRET}\n", user=True)
    monkeypatch.setenv("HOME", str(ws.home))
    monkeypatch.setenv("SECRET", SECRET)
    monkeypatch.setenv("KIND", "local")
    monkeypatch.setenv("LEMON_AGENT_DIR", str(ws.root / "agent"))
    monkeypatch.setenv("LEMON_MCP_EXTERNAL_USER_DISCOVERY", "1")
    monkeypatch.setenv("LEMON_MCP_DISCOVERY_HOME", str(ws.home))
    return ws


@pytest.mark.parametrize("provider", sorted(PROJECT_FILES))
@pytest.mark.parametrize("scope", ["project", "user"])
def test_no_importer_shows_a_planted_secret(planted: Workspace, provider: str, scope: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rel, content = PROJECT_FILES[provider]
    if scope == "user":
        if provider not in USER_FILES:
            pytest.skip(f"{provider} has no user files")
        rel = USER_FILES[provider]
        if provider == "claude":  # the state file holds servers per project, and at the top
            data = json.loads(content)
            content = json.dumps({"projects": {str(planted.proj): data}, **data})
    planted.write(rel, content, user=scope == "user")
    texts = _outputs(planted, capsys)
    for text in texts:
        for secret in SECRETS:
            assert secret not in text, f"{provider} ({scope}) shows {secret!r}"
    data = json.loads(texts[2])  # list --all --json
    shown = {s["name"] for s in data["effective"] if s["source"]["provider"] == provider}
    assert {"local", "remote"} <= shown
    reasons = {(s["name"], s["reason"]) for s in data["skipped"] if s["provider"] == provider}
    assert ("bad-url", "invalid_url") in reasons
    assert data["errors"] == []
    revealed = "".join(_outputs(planted, capsys, "--reveal"))
    assert SECRET in revealed  # it was really there


def test_substituted_names_are_skipped_by_position(planted: Workspace,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = planted.write("opencode.json", OPENCODE)
    code, out, err = run_cli(capsys, "mcp", "list", "--all", "--json", "--cwd", str(planted.proj))
    assert code == 0, err
    skipped = [s for s in json.loads(out)["skipped"] if s["provider"] == "opencode"]
    assert skipped[:3] == [
        {"name": None, "provider": "opencode", "scope": "project", "file": str(path),
         "reason": "substituted_name", "index": index}
        for index in range(3)
    ]  # fmt: skip
    assert skipped[3] == {"name": "typed", "provider": "opencode", "scope": "project",
                          "file": str(path), "reason": "substituted_field", "index": 3}
    code, out, err = run_cli(capsys, "mcp", "list", "--all", "--cwd", str(planted.proj))
    assert f"skipped entry #0 (opencode:project {path}): substituted_name" in out
    assert f"skipped entry #2 (opencode:project {path}): substituted_name" in out
    for text in (out, err):
        # not even escaped: no part of the file's first line or its key shows either
        assert "aws_secret" not in text and "PLANTED" not in text and "[default]" not in text


def test_lemon_mcp_servers_secrets_stay_hidden(planted: Workspace, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LEMON_MCP_SERVERS", json.dumps([
        {"name": "e1", "type": "stdio", "command": f"/bin/{SECRET}", "env": {"K": SECRET}},
        {"name": "e2", "type": "http", "url": f"{SECRET}url"},
    ]))  # fmt: skip
    texts = _outputs(planted, capsys)
    for text in texts:
        assert SECRET not in text
    assert any("LEMON_MCP_SERVERS" in text for text in texts)  # the invalid entry is reported
