"""``lemon mcp tools/status/call`` against real SDK servers (stdio subprocesses, Streamable HTTP
on 127.0.0.1); no credential is ever printed; exit 0 / 1 / 2."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.mcp.client.servers import sdk_server
from tests.mcp.runtime.support import SECRET, SLOW, stdio_entry, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    monkeypatch.setenv("LEMON_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return path


def _run(capsys, project: Path, *argv: str) -> tuple[int, str, str]:
    code, out, err = run_cli(capsys, "mcp", *argv, "--cwd", str(project))
    assert SECRET not in out + err
    return code, out, err


@pytest.mark.slow
def test_tools_status_and_call_over_stdio_and_http(capsys, project: Path,
                                                   tmp_path: Path) -> None:
    marker = tmp_path / "http-marker"
    with sdk_server("streamable-http", marker) as url:
        write_project(project, stdio_entry("alpha", "full", tmp_path / "a.log"),
                      stdio_entry("beta", "tools-only", tmp_path / "b.log"),
                      {"name": "web", "type": "http", "url": url,
                       "headers": {"Authorization": f"Bearer {SECRET}"}, **SLOW},
                      {"name": "down", "type": "stdio", "command": str(tmp_path / SECRET)})
        code, out, _ = _run(capsys, project, "tools", "--json")
        assert code == 0
        tools = json.loads(out)["tools"]
        reads = [t for t in tools if t["tool"] == "read_file"]
        assert {t["server"] for t in reads} == {"alpha", "beta"}
        assert len({t["name"] for t in reads}) == 2
        assert {t["tool"] for t in tools if t["server"] == "web" and t["kind"] == "tool"} \
            == {"echo", "touch"}
        assert not [t for t in tools if t["server"] == "beta" and t["kind"] == "utility"]

        code, out, _ = _run(capsys, project, "tools", "beta")
        assert code == 0 and "mcp_beta_read_file_" in out and "alpha" not in out

        code, out, _ = _run(capsys, project, "status", "--json")
        servers = {s["name"]: s for s in json.loads(out)["servers"]}
        assert code == 0 and servers["web"]["connected"] and servers["web"]["tools"] == 6  # 2 + utilities
        assert servers["beta"]["capabilities"] == ["tools"]
        assert not servers["down"]["connected"]
        assert servers["down"]["last_error"]["kind"] == "spawn_failed"
        code, out, _ = _run(capsys, project, "status")
        assert code == 0 and "down" in out and "could not be started" in out

        echo = next(t["name"] for t in tools if t["server"] == "web" and t["tool"] == "echo")
        code, out, _ = _run(capsys, project, "call", echo, "--args", '{"text": "hi"}', "--json")
        assert code == 0 and json.loads(out)["result"]["content"][0]["text"] == "hi"
        code, out, _ = _run(capsys, project, "call", echo, "--args", '{"text": "plain"}')
        assert code == 0 and out.strip() == "plain"


@pytest.mark.slow
def test_call_approval_args_and_unknown_names(capsys, project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    write_project(project, stdio_entry("git", "full", tmp_path / "g.log", marker,
                                       approval="always"))
    code, out, _ = _run(capsys, project, "tools", "--json")
    touch = next(t["name"] for t in json.loads(out)["tools"] if t["tool"] == "touch")
    code, out, err = _run(capsys, project, "call", touch)
    assert code == 1 and "needs approval" in err and not marker.exists()
    assert "pass --approve" in err and "approver=" not in err  # the CLI names its own flag
    code, out, _ = _run(capsys, project, "call", touch, "--json")
    assert code == 1 and json.loads(out)["error"]["kind"] == "approval"
    assert "approver=" not in json.loads(out)["error"]["message"]
    code, out, _ = _run(capsys, project, "call", touch, "--approve")
    assert code == 0 and out.strip() == "touched" and marker.exists()
    code, _, err = _run(capsys, project, "call", touch, "--args", "[1]")
    assert code == 2 and "JSON object" in err
    code, _, err = _run(capsys, project, "call", "mcp_git_nothing_0000000000000000")
    assert code == 1 and "lemon mcp tools" in err


@pytest.mark.slow
def test_approval_is_asked_on_a_terminal(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    write_project(project, stdio_entry("git", "full", tmp_path / "g.log", marker,
                                       approval="always"))
    env = {**os.environ, "LEMON_AGENT_DIR": str(tmp_path / "agent"),
           "HOME": str(tmp_path / "home")}
    lemon = str(Path(sys.executable).parent / "lemon")
    listed = subprocess.run([lemon, "mcp", "tools", "--json", "--cwd", str(project)],
                            capture_output=True, text=True, env=env, check=True)
    touch = next(t["name"] for t in json.loads(listed.stdout)["tools"] if t["tool"] == "touch")
    main, child = pty.openpty()
    proc = subprocess.Popen([lemon, "mcp", "call", touch, "--cwd", str(project)],
                            stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    seen = b""
    end = time.monotonic() + 120
    while b"[y/N]" not in seen and time.monotonic() < end:
        try:
            seen += os.read(main, 4096)
        except OSError:
            break
    assert b"[y/N]" in seen and SECRET.encode() not in seen
    os.write(main, b"y\n")
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=120) == 0
    os.close(main)
    assert b"touched" in seen and marker.read_text().split() == ["called"]


@pytest.mark.slow
def test_a_registered_gateway_is_skipped_not_listed_twice(capsys, project: Path,
                                                          tmp_path: Path) -> None:
    # the user registered 'lemon mcp serve' in a file lemon reads: connecting to it would list
    # alpha's tools a second time, through the gateway
    gateway = {"name": "lemon", "type": "stdio", "command": "lemon", "args": ["mcp", "serve"],
               "env": {"API_KEY": SECRET}, **SLOW}
    write_project(project, stdio_entry("alpha", "full", tmp_path / "a.log"), gateway)
    code, out, _ = _run(capsys, project, "tools", "--json")
    assert code == 0
    assert {t["server"] for t in json.loads(out)["tools"]} == {"alpha"}
    code, out, _ = _run(capsys, project, "status", "--json")
    servers = {s["name"]: s for s in json.loads(out)["servers"]}
    assert not servers["lemon"]["connected"]
    assert servers["lemon"]["last_error"]["kind"] == "skipped"
    code, out, err = _run(capsys, project, "tools")
    assert code == 0 and 'server "lemon" skipped: this entry runs' in err
    assert "skipped: skipped" not in err


def test_an_unusable_lemon_file_is_named_and_fails_like_mcp_list(capsys, project: Path,
                                                                 tmp_path: Path) -> None:
    """A broken ``.lemon/mcp.json`` disables every server of the project (fail closed): tools,
    status and call say so and exit 1, as ``lemon mcp list`` does, instead of reporting an
    empty project. The imported server it disabled is never started."""
    log = tmp_path / "cursor.log"
    cursor = project / ".cursor"
    cursor.mkdir(parents=True)
    (cursor / "mcp.json").write_text(json.dumps({"mcpServers": {
        "imported": {"command": sys.executable, "args": [str(tmp_path / "nope.py"), str(log)],
                     "env": {"API_KEY": SECRET}}}}))
    lemon_file = write_project(project)
    lemon_file.write_text('{"servers": [\n<<<<<<< HEAD\n')
    for argv in (("status",), ("tools",)):
        code, out, err = _run(capsys, project, *argv)
        assert code == 1 and f"{lemon_file}: invalid JSON at line 2" in err
        assert "every MCP server is disabled until this file is fixed" in err
        code, out, err = _run(capsys, project, *argv, "--json")
        errors = json.loads(out)["errors"]
        assert code == 1 and [(e["provider"], e["kind"]) for e in errors] == [
            ("lemon", "invalid_json")]
    assert json.loads(out)["tools"] == []
    code, _, err = _run(capsys, project, "call", "mcp_imported_x_0123456789abcdef")
    assert code == 1 and "no MCP tool named" in err and "invalid JSON" in err
    assert not log.exists()
    # an imported file's error is shown, but does not fail: lemon's own file is fine again
    lemon_file.write_text('{"servers": []}')
    (cursor / "mcp.json").write_text("{bad")
    code, out, err = _run(capsys, project, "status")
    assert code == 0 and "No enabled MCP servers." in out
    assert "cursor:project" in err and "not valid JSON" in err


@pytest.mark.slow
def test_call_by_server_and_tool_with_close_names(capsys, project: Path, tmp_path: Path) -> None:
    """Issue 23 §5: 'lemon mcp call SERVER TOOL' (the tool's own name on that server) works
    like the model-facing name; a miss names the closest servers, tools or names."""
    write_project(project, stdio_entry("calc", "full", tmp_path / "a.log"),
                  stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    code, out, err = _run(capsys, project, "call", "calc", "read_file", "--args",
                          '{"path": "x"}')
    assert (code, out) == (0, "full:x\n"), err
    code, out, _ = _run(capsys, project, "call", "calc", "resources_list", "--json")
    assert code == 0 and json.loads(out)["name"].startswith("mcp_calc_resources_list_")

    code, out, err = _run(capsys, project, "call", "calc", "red_file")
    assert code == 1 and out == ""
    assert "server 'calc' has no tool named 'red_file'; did you mean 'read_file'?" in err
    code, _, err = _run(capsys, project, "call", "cal", "read_file")
    assert code == 1 and "no MCP server named 'cal'" in err and "did you mean 'calc'?" in err
    code, _, err = _run(capsys, project, "call", "read_file")  # a raw name alone
    assert code == 1 and "'calc read_file'" in err and "'beta read_file'" in err
    code, _, err = _run(capsys, project, "call", "mcp_calc_read_fil")
    assert code == 1 and "did you mean 'mcp_calc_read_file_" in err
    code, out, _ = _run(capsys, project, "call", "calc", "nothing_like_it", "--json")
    data = json.loads(out)
    assert code == 1 and data["name"] == "calc" and "nothing_like_it" in data["error"]["message"]
    assert data["error"]["kind"] == "not_found"


def test_cut_descriptions_end_with_an_ellipsis() -> None:
    from lemon_core.cli.mcp_runtime import _first_line

    assert _first_line("short") == "short"
    long = _first_line("x" * 150)
    assert len(long) == 100 and long.endswith("…")
    assert _first_line("first line\nmore detail") == "first line…"
    assert _first_line("  \n") == ""


def test_call_by_server_and_tool_of_an_untrusted_server_names_trust(
        capsys, project: Path, tmp_path: Path) -> None:
    log = tmp_path / "u.log"
    write_project(project, stdio_entry("calc", "full", log), trusted=False)
    code, out, err = _run(capsys, project, "call", "calc", "read_file")
    assert code == 1 and out == "" and not log.exists()  # never started
    assert "no MCP tool named 'calc read_file' is available" in err
    assert "lemon mcp trust calc" in err
