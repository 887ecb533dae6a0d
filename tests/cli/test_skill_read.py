"""``lemon skill read``: one view of a skill, never a file outside it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill


@pytest.fixture
def project(cli_project: Path, tmp_path: Path) -> Path:
    project = cli_project
    root = project / ".agents" / "skills"
    write_skill(root, "demo", description="A demo.",
                body="# Demo\n\n## Usage\n\nRun it.\n\n## Notes\n\nMore.\n")
    (root / "demo" / "notes.md").write_text("notes \x1b[31mred\n")
    (tmp_path / "secret").write_text("SECRET")
    os.symlink(tmp_path / "secret", root / "demo" / "leak.md")
    return project


def read(capsys, project: Path, *args: str) -> tuple[int, str, str]:
    return run_cli(capsys, "skill", "read", *args, "--cwd", str(project))


def test_read_full_and_provenance_on_stderr(project, capsys) -> None:
    code, out, err = read(capsys, project, "demo")
    assert code == 0, err
    assert out.startswith("---\nname: demo\n") and "## Notes" in out
    assert "from project folder; trust: not installed by lemon" in err


def test_read_views_json(project, capsys) -> None:
    code, out, err = read(capsys, project, "demo", "--view", "section", "--section", "usage",
                          "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["content"] == "## Usage\n\nRun it.\n" and data["view"] == "section"
    assert {"key", "name", "view", "content", "path", "size", "source", "trust_level",
            "status", "manifest"} <= set(data)
    code, out, _ = read(capsys, project, "demo", "--view", "summary", "--include-status",
                        "--include-manifest", "--json")
    data = json.loads(out)
    assert "- Usage" in data["content"] and data["status"]["state"] == "active"
    assert data["manifest"]["description"] == "A demo."
    code, out, _ = read(capsys, project, "demo", "--max-chars", "5", "--json")
    data = json.loads(out)
    assert data["truncated"] and data["content"].startswith("---\nn")


def test_read_file_escaped_and_never_outside(project, capsys) -> None:
    code, out, _ = read(capsys, project, "demo", "--file", "notes.md")
    assert code == 0 and "\x1b" not in out and "notes \\x1b[31mred" in out
    code, out, _ = read(capsys, project, "demo", "--file", "notes.md", "--json")
    assert json.loads(out)["content"] == "notes \x1b[31mred\n"  # JSON stays exact
    for bad in ("leak.md", "../../../secret"):
        code, out, err = read(capsys, project, "demo", "--file", bad)
        assert code == 1 and "SECRET" not in out + err and "outside the skill folder" in err


def test_read_errors(project, capsys) -> None:
    code, _, err = read(capsys, project, "demx")
    assert code == 1 and "did you mean 'demo'" in err
    code, _, err = read(capsys, project, "demo", "--view", "bogus")
    assert code == 2 and "unknown view" in err
    code, _, err = read(capsys, project, "demo", "--section", "nope")
    assert code == 1 and "'Usage'" in err


def test_read_takes_the_skill_uris_agents_are_given(project, capsys) -> None:
    code, out, err = read(capsys, project, "skill://demo")
    assert code == 0 and out.startswith("---\nname: demo\n"), err
    code, out, _ = read(capsys, project, "skill://demo/notes.md", "--json")
    data = json.loads(out)
    assert code == 0 and data["view"] == "file" and data["content"] == "notes \x1b[31mred\n"
    code, out, err = read(capsys, project, "skill://demo/../../../secret")
    assert code == 1 and "SECRET" not in out + err and "outside the skill" in err
    code, _, err = read(capsys, project, "skill://demo/notes.md", "--view", "summary")
    assert code == 2 and "names one file" in err
    code, _, err = read(capsys, project, "skill://de%1bmo")
    assert code == 2 and "\x1b" not in err and "cannot be a skill key" in err


def test_a_disabled_skill_is_told_the_enable_that_undoes_its_own_setting(project,
                                                                          capsys) -> None:
    """The project's .lemon/skills.json switched it off: the hint is ``enable --local``
    (a global ``enable`` would leave it off here); a global setting gets the global one."""
    assert run_cli(capsys, "skill", "disable", "demo", "--local", "--cwd", str(project))[0] == 0
    code, _, err = read(capsys, project, "demo")
    assert code == 1 and "disabled in the project" in err
    assert "'lemon skill enable --local demo'" in err
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--offline", "--cwd", str(project))
    assert "demo is disabled in the project; enable it with 'lemon skill enable --local demo'" \
        in out
    (project / ".lemon" / "skills.json").unlink()
    run_cli(capsys, "skill", "disable", "demo", "--cwd", str(project))
    code, _, err = read(capsys, project, "demo")
    assert code == 1 and "disabled globally; enable it with 'lemon skill enable demo'" in err
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--offline", "--cwd", str(project))
    assert "enable it with 'lemon skill enable demo'" in out
