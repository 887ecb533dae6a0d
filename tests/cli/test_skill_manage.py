"""``lemon skill manage``: the skill_manage library call from the command line, with the
terminal's approval under write_approval (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.mcp.servers.stdio import BIN

SKILL = "---\nname: lesson\ndescription: Use when testing lessons.\n---\n# Lesson\nStep one.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    return project


def _lemon(project: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "lemon"), "skill", "manage", *args, "--cwd", str(project)],
                          input=stdin, capture_output=True, text=True, timeout=120,
                          env={**os.environ})


def test_create_patch_and_report_from_the_cli(project: Path) -> None:
    made = _lemon(project, "create", "lesson", "--content-file", "-", "--json", stdin=SKILL)
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["outcome"] == "written"
    patched = _lemon(project, "patch", "lesson", "--old", "Step one.", "--new", "Step two.")
    assert patched.returncode == 0 and "written" in patched.stdout
    text = (project / ".lemon" / "skill" / "lesson" / "SKILL.md").read_text()
    assert text.endswith("Step two.\n")
    refused = _lemon(project, "write_file", "lesson", "--path", "../x", "--content-file", "-",
                     stdin="x")
    assert refused.returncode != 0 and "refused" in refused.stderr
    report = _lemon(project, "report", "--json")
    assert [r["key"] for r in json.loads(report.stdout)["rows"]] == ["lesson"]


def test_write_approval_without_a_terminal_needs_approve(project: Path) -> None:
    (project / ".lemon").mkdir()
    (project / ".lemon" / "config.toml").write_text("[skills]\nwrite_approval = true\n")
    refused = _lemon(project, "create", "lesson", "--content-file", "-", stdin=SKILL)
    assert refused.returncode != 0 and "approval" in refused.stderr
    assert not (project / ".lemon" / "skill").exists()
    made = _lemon(project, "create", "lesson", "--content-file", "-", "--approve", stdin=SKILL)
    assert made.returncode == 0, made.stderr
