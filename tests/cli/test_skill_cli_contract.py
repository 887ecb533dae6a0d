"""The JSON contracts of ``lemon skill list|inspect|check|lint`` key by key, with their types,
and the exit codes and one-line errors of every failure mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_cli, write_skill

STATES = {"disabled", "platform_incompatible", "blocked", "not_ready", "active"}
ENTRY_TYPES: dict[str, Any] = {
    "key": str, "name": str, "description": str, "scope": str, "root": str, "dir": str,
    "path": str, "state": str, "hidden": bool, "disabled": bool, "tags": list,
    "keywords": list, "category": (str, type(None)), "shadowed": list,
}
MANIFEST_TYPES: dict[str, Any] = {
    "name": (str, type(None)), "description": str, "version": (str, type(None)),
    "author": (str, type(None)), "tags": list, "keywords": list, "platforms": list,
    "requires": dict, "requires_tools": list, "fallback_for_tools": list,
    "required_environment_variables": list, "verification": (dict, type(None)),
    "references": list, "metadata": dict, "hide": bool,
}
CHECK_TYPES: dict[str, Any] = {
    "key": str, "state": str, "ready": bool, "missing_bins": list, "missing_config": list,
    "missing_env_vars": list, "missing_tools": list, "platform_ok": bool,
    "verification": (dict, type(None)),
}


def _typed(data: dict[str, Any], types: dict[str, Any]) -> None:
    for key, kind in types.items():
        assert key in data, f"missing key {key!r}"
        assert isinstance(data[key], kind), (key, data[key])
        if kind is bool:  # isinstance(True, int) is True; the reverse must hold exactly
            assert data[key] in (True, False)
        if kind is list:
            assert all(isinstance(item, str) for item in data[key]) or key == "references"


def _one_line_error(err: str) -> None:
    assert err.startswith("lemon: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / ".agents" / "skills", "full", """\
        name: full
        description: Use when testing every field.
        version: "1.2.0"
        author: acme
        tags: [a, b]
        keywords: [k]
        platforms: [linux, macos, windows]
        requires:
          bins: [sh]
          config: [KUBECONFIG]
        requires_tools: [sh]
        fallback_for_tools: [kube-ps1]
        required_environment_variables: [KUBE_CONTEXT]
        verification:
          command: echo Client Version
          expect_output: Client
        references:
          - notes.md
          - url: https://example.invalid/docs
            description: Docs
        metadata:
          lemon:
            category: devops
        x-host-key: kept
        """)
    write_skill(home / ".agents" / "skills", "full")
    write_skill(repo / ".agents" / "skills", "plain", "")
    write_skill(repo / ".agents" / "skills", "warned",
                "name: warned\ndescription: Use when: a colon\n")
    lock = repo / ".lemon" / "skills.lock.json"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"version": 1, "skills": {"full": {
        "key": "full", "source_kind": "local", "source_id": "/src/full",
        "audit_status": "pass"}}}))
    return repo


def test_list_json_every_key_with_its_type(project: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "skill", "list", "--cwd", str(project), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"skills", "diagnostics"}
    keys = [entry["key"] for entry in data["skills"]]
    assert keys == sorted(keys) == ["full", "plain", "warned"]
    for entry in data["skills"]:
        _typed(entry, ENTRY_TYPES)
        assert entry["scope"] in {"project", "global", "builtin"}
        assert entry["state"] in STATES
        assert entry["path"] == str(Path(entry["dir"]) / "SKILL.md")
        assert Path(entry["dir"]).parent == Path(entry["root"])
    full, plain, _ = data["skills"]
    assert full["category"] == "devops" and plain["category"] is None
    assert plain["name"] == "plain" and plain["description"] == ""
    assert len(full["shadowed"]) == 1
    [warning] = data["diagnostics"]
    assert set(warning) >= {"path", "severity", "code", "message"}
    assert warning["severity"] == "warning" and warning["code"] == "yaml_repaired"
    assert all(isinstance(warning[k], str) for k in ("path", "code", "message"))


def test_inspect_json_every_key_with_its_type(project: Path, capsys) -> None:
    (project / ".agents" / "skills" / "full" / "notes.md").write_text("n")
    code, out, err = run_cli(capsys, "skill", "inspect", "full", "--cwd", str(project),
                             "--json")
    assert code == 0, err
    data = json.loads(out)
    _typed(data, ENTRY_TYPES)
    manifest = data["manifest"]
    _typed(manifest, MANIFEST_TYPES)
    assert manifest["requires"] == {"bins": ["sh"], "config": ["KUBECONFIG"]}
    assert manifest["platforms"] == ["linux", "darwin", "win32"]
    assert manifest["required_environment_variables"] == ["KUBE_CONTEXT", "KUBECONFIG"]
    assert manifest["verification"] == {"command": "echo Client Version", "expect_exit": 0,
                                        "expect_output": "Client"}
    assert manifest["references"] == [{"path": "notes.md"},
                                      {"url": "https://example.invalid/docs",
                                       "description": "Docs"}]
    assert manifest["metadata"] == {"lemon": {"category": "devops"}}
    assert manifest["hide"] is False
    assert data["provenance"]["source_id"] == "/src/full"
    assert data["files"] == ["SKILL.md", "notes.md"]
    code, out, _ = run_cli(capsys, "skill", "inspect", "plain", "--cwd", str(project), "--json")
    plain = json.loads(out)
    assert plain["provenance"] is None and plain["manifest"]["name"] is None
    assert plain["manifest"]["verification"] is None


def test_check_json_every_key_with_its_type(project: Path, capsys, monkeypatch) -> None:
    code, out, err = run_cli(capsys, "skill", "check", "full", "--cwd", str(project), "--json")
    assert code == 0, err
    data = json.loads(out)
    _typed(data, CHECK_TYPES)
    assert data["state"] == "not_ready" and data["ready"] is False
    assert data["missing_config"] == ["KUBECONFIG"]
    assert data["missing_env_vars"] == ["KUBE_CONTEXT", "KUBECONFIG"]
    assert data["verification"] is None  # only with --verify
    monkeypatch.setenv("KUBECONFIG", "")  # an empty value counts as missing
    monkeypatch.setenv("KUBE_CONTEXT", "prod")
    data = json.loads(run_cli(capsys, "skill", "check", "full", "--cwd", str(project),
                              "--json")[1])
    assert data["missing_env_vars"] == ["KUBECONFIG"]
    monkeypatch.setenv("KUBECONFIG", "/k")
    code, out, _ = run_cli(capsys, "skill", "check", "full", "--cwd", str(project), "--verify",
                           "--json")
    data = json.loads(out)
    assert data["state"] == "active" and data["ready"] is True
    assert data["verification"] == {"exit_code": 0, "passed": True}


def test_lint_json_every_key_with_its_type(project: Path, capsys) -> None:
    root = project / ".agents" / "skills"
    (root / "full" / "notes.md").write_text("n")
    code, out, _ = run_cli(capsys, "skill", "lint", str(root / "full"), str(root / "warned"),
                           "--json")
    results = json.loads(out)["results"]
    assert code == 0
    for result in results:
        assert isinstance(result["path"], str) and result["ok"] in (True, False)
        for issue in result["errors"] + result["warnings"]:
            assert set(issue) >= {"code", "message"}
            assert isinstance(issue["code"], str) and isinstance(issue["message"], str)
    assert "yaml_repaired" in [w["code"] for w in results[1]["warnings"]]
    code, out, _ = run_cli(capsys, "skill", "lint", str(root / "warned"), "--strict", "--json")
    assert code == 1 and json.loads(out)["results"][0]["ok"] is False


def test_invalid_arguments_exit_2_with_one_line(project: Path, capsys) -> None:
    for argv in (["skill", "list", "--bogus"], ["skill", "check"],
                 ["skill", "list", "--cwd", str(project / "no-such-dir")],
                 ["skill", "list", "--cwd", str(project / ".git" / "nothing")],
                 ["skill", "enable"], ["plugins", "list", "--nope"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2 and out == "", argv
        _one_line_error(err)
    code, _, err = run_cli(capsys, "skill", "list", "--cwd", str(project / "nope"))
    assert "nope" in err and "does not exist" in err


def test_operation_failures_exit_1_with_one_line(project: Path, capsys,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for argv in (["skill", "inspect", "nope"], ["skill", "check", "nope", "--json"],
                 ["skill", "disable", "nope"]):
        code, out, err = run_cli(capsys, *argv, "--cwd", str(project))
        assert code == 1 and out == "", argv
        _one_line_error(err)
    blocker = project / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("LEMON_AGENT_DIR", str(blocker / "agent"))  # cannot be created
    write_skill(blocker.parent / ".lemon" / "skill", "local-one")
    code, out, err = run_cli(capsys, "skill", "disable", "local-one", "--cwd", str(project))
    assert code == 1 and out == ""
    _one_line_error(err)
    assert str(blocker / "agent" / "skills.json") in err


def test_group_without_a_command_prints_its_help(capsys) -> None:
    code, out, err = run_cli(capsys, "skill")
    assert code == 2 and "Usage:" in (out + err) and "list" in (out + err)
