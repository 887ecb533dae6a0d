"""``lemon mcp test NAME``: against ``lemon skill serve`` over stdio and SDK servers on
127.0.0.1 over Streamable HTTP and SSE; failures are redacted; exit 0 / 1 / 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill
from tests.mcp.client.servers import free_port, sdk_server, unauthorized_server

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

BIN = Path(sys.executable).parent
SECRET = "s3cr3t-value-7"
SLOW = {"timeout_ms": 60_000, "ready_timeout_ms": 60_000}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    write_skill(path / ".agents" / "skills", "nix-flakes")
    return path


def _configure(project: Path, *servers: dict) -> None:
    from lemon_core.context import LemonContext
    from tests.helpers import trust_project

    folder = project / ".lemon"
    folder.mkdir(exist_ok=True)
    (folder / "mcp.json").write_text(json.dumps({"servers": list(servers)}))
    trust_project(project, LemonContext.from_environment(cwd=project).agent_dir)


def _test(capsys, project: Path, name: str, *extra: str) -> tuple[int, str, str]:
    return run_cli(capsys, "mcp", "test", name, "--cwd", str(project), *extra)


def test_lemon_skill_serve_over_stdio(project: Path, capsys) -> None:
    _configure(project, {"name": "skills", "type": "stdio", "command": str(BIN / "lemon"),
                         "args": ["skill", "serve"], "env": {"API_KEY": SECRET}, **SLOW})
    code, out, err = _test(capsys, project, "skills")
    assert code == 0, err
    assert out.startswith('Server "skills" (stdio, lemon:project): connected, 4 tools')
    assert "lemon-skills" in out and SECRET not in out + err

    code, out, _ = _test(capsys, project, "skills", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["ok"], data["tool_count"], data["tools"]) == (
        True, 4, ["find_skills", "load_skill", "read_skill", "skill_manage"])
    assert data["server"]["name"] == "lemon-skills" and data["source"] == "lemon:project"
    assert SECRET not in out


@pytest.mark.parametrize(("transport", "kind"), [("streamable-http", "http"), ("sse", "sse")])
def test_sdk_servers_over_http(project: Path, tmp_path: Path, capsys, transport: str,
                               kind: str) -> None:
    marker = tmp_path / "called"
    with sdk_server(transport, marker) as url:
        _configure(project, {"name": "web", "type": kind, "url": url,
                             "headers": {"Authorization": f"Bearer {SECRET}"}, **SLOW})
        code, out, err = _test(capsys, project, "web", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["transport"], data["tool_count"]) == (kind, 2)
    assert sorted(data["tools"]) == ["echo", "touch"]
    assert not marker.exists()  # never invokes a tool
    assert SECRET not in out + err and url not in out + err


def test_failures_are_redacted_and_exit_1(project: Path, capsys) -> None:
    with unauthorized_server() as locked:
        _configure(
            project,
            {"name": "gone", "type": "stdio", "command": str(project / "missing-program"),
             "args": [f"--token={SECRET}"], "env": {"API_KEY": SECRET}},
            {"name": "off", "type": "http", "url": f"http://127.0.0.1:{free_port()}/mcp?k="
             f"{SECRET}", "headers": {"X-Key": SECRET}},
            {"name": "locked", "type": "sse", "url": locked,
             "headers": {"Authorization": f"Bearer {SECRET}"}},
        )
        results = {name: _test(capsys, project, name) for name in ("gone", "off", "locked")}
        code, out, _ = _test(capsys, project, "locked", "--json")
    for name, (code_, out_, err_) in results.items():
        assert code_ == 1, name
        assert out_ == ""
        assert err_.startswith(f'lemon: server "{name}" (')
        assert SECRET not in err_ and "missing-program" not in err_ and "127.0.0.1" not in err_
    assert "could not be started" in results["gone"][2]
    assert "could not connect" in results["off"][2]
    assert "HTTP 401" in results["locked"][2]
    assert code == 1
    data = json.loads(out)
    assert data["ok"] is False and data["error"]["kind"] == "http_status"
    assert data["error"]["status"] == 401 and SECRET not in out


def test_unknown_and_invalid_names(project: Path, capsys) -> None:
    _configure(project)
    code, _, err = _test(capsys, project, "nothing")
    assert code == 1 and "no MCP server named" in err and "lemon mcp list --all" in err
    code, _, err = _test(capsys, project, "bad name!")
    assert code == 2 and "invalid server name" in err


def test_any_server_of_the_effective_set_is_tested_naming_its_origin(
        project: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 §5: a global lemon server (no --global needed) and an imported server that
    'lemon mcp status' connects to are tested like a project entry, each naming its scope and
    file; an untrusted imported server is refused as status leaves it out; a typo gets the
    close names."""
    from lemon_core.context import LemonContext
    from tests.mcp.runtime.support import SERVER

    agent = LemonContext.from_environment(cwd=project).agent_dir
    tools_only = {"command": sys.executable, "args": [SERVER, "tools-only", str(tmp_path / "l")],
                  "env": {"K": SECRET}}
    agent.mkdir(parents=True, exist_ok=True)
    (agent / "mcp.json").write_text(json.dumps(
        {"servers": [{"name": "glob", "type": "stdio", **tools_only, **SLOW}]}))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"imported": tools_only}}))

    code, out, err = _test(capsys, project, "glob")
    assert code == 0, err
    assert 'Server "glob" (stdio, lemon:global ' in out and "1 tool" in out
    assert str(agent / "mcp.json") in out

    code, out, err = _test(capsys, project, "imported")  # not trusted yet: as status
    assert code == 1 and out == "" and "lemon mcp trust imported" in err
    assert SECRET not in err
    from lemon_core.mcp.effective import effective_servers
    from lemon_core.mcp.trust.store import trust_servers

    ctx = LemonContext.from_environment(cwd=project)
    trust_servers(ctx, [effective_servers(ctx).get("imported").server])  # type: ignore[union-attr]
    code, out, err = _test(capsys, project, "imported", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["source"] == "root:project" and data["file"] == str(project / ".mcp.json")
    assert data["tools"] == ["read_file"] and SECRET not in out

    code, _, err = _test(capsys, project, "importd")
    assert code == 1 and 'did you mean "imported"' in err

    code, _, err = _test(capsys, project, "nowhere")
    assert code == 1 and "did you mean" not in err and "lemon mcp list --all" in err
