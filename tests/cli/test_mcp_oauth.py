"""``lemon mcp login`` / ``logout`` and the OAuth statuses of the other commands, against the
test authorization server and the SDK MCP server requiring its tokens (127.0.0.1). The login
runs as a real ``lemon`` subprocess; the test plays the browser. No token, client secret or
configured header value ever appears in the output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tests.helpers import run_cli
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET, PUBLIC_CLIENT
from tests.mcp.client.oauth.conftest import (  # noqa: F401  (fixtures)
    HEADER_SECRET,
    Rig,
    rig,
    rig_servers,
    write_project,
)
from tests.mcp.client.servers import free_port

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

LEMON = str(Path(sys.executable).parent / "lemon")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    monkeypatch.setenv("LEMON_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return path


def _cached_tokens(tmp_path: Path) -> list[str]:
    values = []
    for path in (tmp_path / "agent" / "mcp-oauth").glob("*.json"):
        tokens = json.loads(path.read_text(encoding="utf-8"))["tokens"]
        values += [v for k, v in tokens.items() if k in ("access_token", "refresh_token")]
    return values


def _assert_clean(tmp_path: Path, rig: Rig, *texts: str) -> None:
    secrets = [CLIENT_SECRET, HEADER_SECRET, *_cached_tokens(tmp_path), *rig.auth.access,
               *rig.auth.refresh]
    for text in texts:
        for secret in secrets:
            assert secret not in text, "a credential was printed"
        assert "Traceback" not in text and "OAuth flow error" not in text


def _pkce(rig: Rig) -> dict[str, object]:
    return rig.entry(client_id=PUBLIC_CLIENT, flow="authorization_code_pkce",
                     redirect_uri=f"http://127.0.0.1:{free_port()}/callback")


def _credentials(rig: Rig) -> dict[str, object]:
    return rig.entry(client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                     token_auth_method="client_secret_post")


@pytest.mark.slow
def test_login_prints_the_url_waits_for_the_redirect_and_caches(
        rig: Rig, project: Path, tmp_path: Path) -> None:
    write_project(project, _pkce(rig))
    proc = subprocess.Popen([LEMON, "mcp", "login", "api", "--cwd", str(project)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=os.environ.copy())
    try:
        assert proc.stderr is not None
        shown = []
        for line in proc.stderr:
            shown.append(line)
            if line.startswith("http://"):
                break
        url = shown[-1].strip()
        assert url.startswith(f"{rig.auth.url}/authorize?")
        answer = httpx2.get(url, follow_redirects=True, trust_env=False, timeout=30)
        assert answer.status_code == 200
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill() if proc.poll() is None else None
    err = "".join(shown) + err
    assert proc.returncode == 0, err
    assert 'Logged in to MCP server "api" (authorization_code_pkce, 1 tool)' in out
    assert str(tmp_path / "agent" / "mcp-oauth") in out
    assert "lemon waits up to 300 s for the redirect to http://127.0.0.1:" in err
    assert _cached_tokens(tmp_path)
    _assert_clean(tmp_path, rig, out, err)

    # the other commands now use the cached tokens, without a person
    listed = subprocess.run([LEMON, "mcp", "tools", "--json", "--cwd", str(project)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert listed.returncode == 0, listed.stderr
    assert "echo" in [t["tool"] for t in json.loads(listed.stdout)["tools"]]
    _assert_clean(tmp_path, rig, listed.stdout, listed.stderr)


@pytest.mark.slow
def test_status_says_a_login_is_needed(rig: Rig, project: Path, tmp_path: Path) -> None:
    write_project(project, _pkce(rig))
    done = subprocess.run([LEMON, "mcp", "status", "--json", "--cwd", str(project)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (server,) = json.loads(done.stdout)["servers"]
    assert server["connected"] is False
    assert server["last_error"]["kind"] == "auth_required"
    assert "lemon mcp login api" in server["last_error"]["message"]
    assert done.stderr == ""  # the SDK's OAuth logging stays silent
    tools = subprocess.run([LEMON, "mcp", "tools", "--cwd", str(project)],
                           capture_output=True, text=True, timeout=120, check=False)
    assert "run 'lemon mcp login api'" in tools.stderr
    _assert_clean(tmp_path, rig, done.stdout, tools.stdout, tools.stderr)


def test_login_with_client_credentials_and_logout(capsys, rig: Rig, project: Path,
                                                  tmp_path: Path) -> None:
    write_project(project, _credentials(rig))
    code, out, err = run_cli(capsys, "mcp", "login", "api", "--json", "--cwd", str(project))
    assert code == 0, err
    data = json.loads(out)
    assert data["ok"] and data["flow"] == "client_credentials" and data["persisted"]
    assert data["tool_count"] == 1 and Path(data["cache_file"]).is_file()
    assert "To log in" not in err  # no URL: nothing interactive
    _assert_clean(tmp_path, rig, out, err)
    code, out, err = run_cli(capsys, "mcp", "logout", "api", "--cwd", str(project))
    assert code == 0 and 'Forgot the cached OAuth tokens of MCP server "api"' in out
    assert not Path(data["cache_file"]).exists()
    code, out, _ = run_cli(capsys, "mcp", "logout", "api", "--json", "--cwd", str(project))
    assert code == 0 and json.loads(out) == {"name": "api", "forgot": False}


def test_login_failures_are_fixed_messages(capsys, rig: Rig, project: Path,
                                           tmp_path: Path) -> None:
    entry = rig.entry(client_id=CLIENT_ID, client_secret="WRONG-SECRET-0000",
                      token_auth_method="client_secret_post")
    plain = {"name": "plain", "type": "http", "url": rig.mcp_url}
    write_project(project, entry, plain)
    code, out, err = run_cli(capsys, "mcp", "login", "api", "--cwd", str(project))
    assert code == 1 and "the OAuth authorization failed" in err
    assert "WRONG-SECRET-0000" not in out + err and "invalid_client" not in err
    code, _, err = run_cli(capsys, "mcp", "login", "plain", "--cwd", str(project))
    assert code == 2 and "has no oauth block" in err
    code, _, err = run_cli(capsys, "mcp", "login", "missing", "--cwd", str(project))
    assert code == 1 and "no MCP server named" in err
    _assert_clean(tmp_path, rig, out, err)


def test_persist_false_login_warns(capsys, rig: Rig, project: Path, tmp_path: Path) -> None:
    write_project(project, {**_credentials(rig), "persist_oauth_tokens": False})
    code, out, err = run_cli(capsys, "mcp", "login", "api", "--cwd", str(project))
    assert code == 0 and "kept in memory" in err
    assert not (tmp_path / "agent" / "mcp-oauth").exists()
    _assert_clean(tmp_path, rig, out, err)
