"""Issue 17 §1: a cloned project's MCP servers start only once the user trusts them.

A project names a stdio "server" ``sh -c 'touch MARKER'`` in each of ``.mcp.json``,
``.vscode/mcp.json`` and ``.lemon/mcp.json``: no command that starts, connects or tests servers
runs it until ``lemon mcp trust`` recorded it; a changed entry is untrusted again."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

BIN = Path(sys.executable).parent
FILES = {"root": (".mcp.json", "mcpServers"), "vsc": (".vscode/mcp.json", "servers")}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    agent = tmp_path / "agent"
    monkeypatch.setenv("LEMON_AGENT_DIR", str(agent))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return agent


def _touch(marker: Path, **extra: object) -> dict[str, object]:
    return {"type": "stdio", "command": "sh", "args": ["-c", f"touch {marker}"],
            "ready_timeout_ms": 20_000, **extra}


def plant(project: Path, markers: Path) -> dict[str, Path]:
    """The hostile project: one touching entry per kind of project file; returns the markers."""
    out = {}
    for name, (rel, key) in FILES.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({key: {name: _touch(markers / f"ran-{name}")}}))
        out[name] = markers / f"ran-{name}"
    lemon = project / ".lemon" / "mcp.json"
    lemon.parent.mkdir(parents=True, exist_ok=True)
    lemon.write_text(json.dumps({"servers": [{"name": "lem", **_touch(markers / "ran-lem")}]}))
    out["lem"] = markers / "ran-lem"
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "clone"
    (path / ".git").mkdir(parents=True)
    (tmp_path / "markers").mkdir()
    return path


def _lemon(capsys, project: Path, *argv: str) -> tuple[int, str, str]:
    return run_cli(capsys, "mcp", *argv, "--cwd", str(project))


def _ran(markers: dict[str, Path]) -> set[str]:
    return {name for name, path in markers.items() if path.exists()}


def test_nothing_of_an_untrusted_project_runs(capsys, env: Path, project: Path,
                                              tmp_path: Path) -> None:
    markers = plant(project, tmp_path / "markers")
    for argv in (("status",), ("tools",), ("status", "--json"), ("tools", "--json")):
        code, out, err = _lemon(capsys, project, *argv)
        assert code == 0 and _ran(markers) == set(), argv
        assert err.count("lemon mcp trust") == 1, argv  # one line names the command
        if "--json" in argv:
            assert sorted(json.loads(out)["untrusted"]) == ["lem", "root", "vsc"]
        elif argv == ("status",):
            assert "No trusted MCP servers to start" in out  # not "no enabled servers"
    code, _, err = _lemon(capsys, project, "call", "mcp_lem_x_0123456789abcdef")
    assert code == 1 and "not trusted" in err and "lemon mcp trust" in err
    code, _, err = _lemon(capsys, project, "test", "lem")
    assert code == 1 and "not trusted" in err and "lemon mcp trust lem" in err
    assert _ran(markers) == set()


def test_trust_approve_lets_them_run_and_a_changed_entry_is_untrusted_again(
        capsys, env: Path, project: Path, tmp_path: Path) -> None:
    markers = plant(project, tmp_path / "markers")
    code, out, err = _lemon(capsys, project, "trust", "--approve")
    assert code == 0 and "Trusted 3" in out
    for marker in markers.values():
        assert f"touch {marker}" in err  # the full launch line was shown
    code, _, err = _lemon(capsys, project, "status")
    assert code == 0 and _ran(markers) == {"lem", "root", "vsc"}
    assert "lemon mcp trust" not in err

    for path in markers.values():
        path.unlink()
    root = project / ".mcp.json"  # the same name, another argument
    root.write_text(json.dumps({"mcpServers": {"root": _touch(markers["root"], args=[
        "-c", f"touch {markers['root']}; true"])}}))
    vsc = project / ".vscode" / "mcp.json"  # the same launch line, another env value
    vsc.write_text(json.dumps({"servers": {"vsc": _touch(markers["vsc"], env={"K": "v2"})}}))
    lem = project / ".lemon" / "mcp.json"  # another command
    lem.write_text(json.dumps({"servers": [{"name": "lem", **_touch(markers["lem"]),
                                            "command": "/bin/sh"}]}))
    code, out, err = _lemon(capsys, project, "tools", "--json")
    assert code == 0 and _ran(markers) == set()
    assert sorted(json.loads(out)["untrusted"]) == ["lem", "root", "vsc"]
    assert "v2" not in err


def test_an_env_value_change_alone_untrusts(capsys, env: Path, project: Path,
                                            tmp_path: Path) -> None:
    marker = tmp_path / "markers" / "ran"
    lem = project / ".lemon" / "mcp.json"
    lem.parent.mkdir()
    lem.write_text(json.dumps({"servers": [{"name": "e", **_touch(marker, env={"K": "VALUE-ONE"})}]}))
    assert _lemon(capsys, project, "trust", "e", "--approve")[0] == 0
    store = (env / "mcp-trust.json").read_text()
    assert "VALUE-ONE" not in store  # the value is never stored
    lem.write_text(json.dumps({"servers": [{"name": "e", **_touch(marker, env={"K": "two"})}]}))
    code, out, _ = _lemon(capsys, project, "list", "--all", "--json")
    assert code == 0 and [s["trusted"] for s in json.loads(out)["effective"]] == [False]


def test_store_is_private_outside_the_project_and_untrust_forgets(
        capsys, env: Path, project: Path, tmp_path: Path) -> None:
    markers = plant(project, tmp_path / "markers")
    assert _lemon(capsys, project, "trust", "--all", "--approve")[0] == 0
    store = env / "mcp-trust.json"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600
    assert not any(p.name == "mcp-trust.json" for p in project.rglob("*"))
    data = json.loads(store.read_text())
    assert set(data["projects"]) == {os.path.realpath(project)}
    code, out, _ = _lemon(capsys, project, "untrust", "vsc", "--json")
    assert code == 0 and json.loads(out)["untrusted"] == ["vsc"]
    code, out, _ = _lemon(capsys, project, "list", "--all", "--json")
    trusted = {s["name"]: s["trusted"] for s in json.loads(out)["effective"]}
    assert trusted == {"lem": True, "vsc": False, "root": True}
    code, out, _ = _lemon(capsys, project, "list", "--all")
    assert "TRUSTED" in out and "lemon mcp trust" in out
    assert _lemon(capsys, project, "untrust", "--all")[0] == 0
    assert _lemon(capsys, project, "status")[0] == 0 and _ran(markers) == set()


def test_a_project_reached_through_a_link_is_the_same_project(
        capsys, env: Path, project: Path, tmp_path: Path) -> None:
    markers = plant(project, tmp_path / "markers")
    link = tmp_path / "link"
    link.symlink_to(project)
    assert _lemon(capsys, link, "trust", "--approve")[0] == 0
    assert _lemon(capsys, project, "status")[0] == 0 and _ran(markers) == {"lem", "root", "vsc"}


def test_user_scopes_stay_trusted(capsys, env: Path, project: Path, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "markers" / "ran-env"
    monkeypatch.setenv("LEMON_MCP_SERVERS", json.dumps([{"name": "mine", **_touch(marker)}]))
    glob = tmp_path / "markers" / "ran-global"
    assert run_cli(capsys, "mcp", "add", "g", "--global", "--stdio", "sh", "--", "-c",
                   f"touch {glob}")[0] == 0
    code, out, err = _lemon(capsys, project, "status", "--json")
    assert code == 0 and marker.exists() and glob.exists()
    assert json.loads(out)["untrusted"] == [] and "lemon mcp trust" not in err


def test_add_into_the_project_trusts_what_it_writes(capsys, env: Path, project: Path,
                                                    tmp_path: Path) -> None:
    marker = tmp_path / "markers" / "ran-added"
    code, _, _ = run_cli(capsys, "mcp", "add", "mine", "--cwd", str(project), "--env",
                         "TOKEN=s3cret", "--stdio", "sh", "--", "-c", f"touch {marker}")
    assert code == 0
    code, out, _ = _lemon(capsys, project, "list", "--all", "--json")
    assert [s["trusted"] for s in json.loads(out)["effective"]] == [True]
    assert _lemon(capsys, project, "status")[0] == 0 and marker.exists()
    assert "s3cret" not in (env / "mcp-trust.json").read_text()


def test_add_with_a_busy_trust_store_adds_and_says_how_to_trust(
        capsys, env: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is written first: a busy trust store must not turn a made change into a
    failure (twenty concurrent adds saw 'busy' for an entry that was in the file)."""
    from lemon_core.fsio.write import file_lock

    monkeypatch.setenv("LEMON_LOCK_TIMEOUT", "0")
    env.mkdir(parents=True, exist_ok=True)
    with file_lock(env / "mcp-trust.json"):
        code, out, err = run_cli(capsys, "mcp", "add", "mine", "--cwd", str(project),
                                 "--stdio", "echo", "--json")
    assert code == 0 and json.loads(out)["action"] == "added"
    assert json.loads(out)["notes"] and "lemon mcp trust mine" in err
    code, out, _ = _lemon(capsys, project, "list", "--all", "--json")
    assert [(s["name"], s["trusted"]) for s in json.loads(out)["effective"]] == [("mine", False)]


def test_without_a_terminal_trust_needs_approve(capsys, env: Path, project: Path,
                                                tmp_path: Path) -> None:
    plant(project, tmp_path / "markers")
    code, _, err = _lemon(capsys, project, "trust")  # pytest's stdin is not a terminal
    assert code == 1 and "--approve" in err
    assert not (env / "mcp-trust.json").exists()
    code, _, err = _lemon(capsys, project, "trust", "nope", "--approve")
    assert code == 1 and "nope" in err


def test_trust_shows_launch_lines_with_secret_values_hidden(capsys, env: Path, project: Path,
                                                            tmp_path: Path) -> None:
    lem = project / ".lemon" / "mcp.json"
    lem.parent.mkdir()
    lem.write_text(json.dumps({"servers": [
        {"name": "s", "type": "stdio", "command": "sh", "args": ["-c", "x"], "cwd": "/srv",
         "env": {"API_KEY": "VALUE-1"}},
        {"name": "h", "type": "http", "url": "https://u:pw@example.test/mcp?token=VALUE-2",
         "headers": {"Authorization": "Bearer VALUE-3"}}]}))
    code, _, err = _lemon(capsys, project, "trust", "--approve")
    assert code == 0
    assert '["sh", "-c", "x"]' in err and "cwd: /srv" in err and "API_KEY=<hidden>" in err
    assert "https://***@example.test/mcp?token=***" in err and "Authorization: <hidden>" in err
    assert "VALUE-" not in err and "pw" not in err


def test_concurrent_trust_writers_keep_every_record(env: Path, tmp_path: Path) -> None:
    projects = []
    for i in range(6):
        project = tmp_path / f"p{i}"
        (project / ".lemon").mkdir(parents=True)
        (project / ".lemon" / "mcp.json").write_text(json.dumps({"servers": [
            {"name": f"s{i}", "type": "stdio", "command": "true"}]}))
        projects.append(project)
    procs = [subprocess.Popen([str(BIN / "lemon"), "mcp", "trust", "--approve", "--cwd",
                               str(p)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "LEMON_LOCK_TIMEOUT": "60"})
             for p in projects]
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    data = json.loads((env / "mcp-trust.json").read_text())
    assert {os.path.realpath(p) for p in projects} == set(data["projects"])
    for i, p in enumerate(projects):
        assert list(data["projects"][os.path.realpath(p)]["servers"]) == [f"s{i}"]
