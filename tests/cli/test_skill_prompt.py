"""``lemon skill prompt``: the system-prompt listing on stdout, or its JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill


@pytest.fixture
def project(cli_project: Path) -> Path:
    project = cli_project
    return project


def test_prompt_text_and_json(project, capsys) -> None:
    root = project / ".agents" / "skills"
    write_skill(root, "beta", description="Beta <b>bold</b> & more.")
    write_skill(root, "alpha", description="Alpha skill.")
    write_skill(root, "quiet", "description: Hidden.\nhide: true\n")
    code, out, err = run_cli(capsys, "skill", "prompt", "--cwd", str(project))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "<available_skills>" and lines[-1] == "</available_skills>"
    assert lines[2:4] == ['<skill key="alpha">Alpha skill.</skill>',
                          '<skill key="beta">Beta &lt;b&gt;bold&lt;/b&gt; &amp; more.</skill>']
    assert "quiet" not in out
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--json")
    data = json.loads(out)
    assert list(data) == ["prompt", "shown", "omitted"]
    assert data["prompt"] + "\n" == "\n".join(lines) + "\n" and data["shown"] == 2
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--json",
                           "--max-chars", "300")
    data = json.loads(out)
    assert len(data["prompt"]) <= 300 and data["omitted"] == 2 - data["shown"]


def test_prompt_is_empty_without_skills(project, capsys) -> None:
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project))
    assert (code, out) == (0, "")
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--json")
    assert json.loads(out) == {"prompt": "", "shown": 0, "omitted": 0}
    code, _, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--max-chars",
                           "-1")
    assert code == 2


def test_a_budget_too_small_for_any_listing_says_so_and_exits_1(project, capsys) -> None:
    root = project / ".agents" / "skills"
    write_skill(root, "alpha", description="Alpha skill.")
    write_skill(root, "beta", description="Beta skill.")
    code, out, err = run_cli(capsys, "skill", "prompt", "--cwd", str(project),
                             "--max-chars", "10")
    assert (code, out) == (1, "")
    needed = int(err.split("needs ")[1].split(" ")[0])
    assert "--max-chars 10 is too small to list any of the 2 skills" in err
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--max-chars",
                           str(needed))
    assert code == 0 and len(out.rstrip("\n")) == needed and '<skill key="beta">' in out
    code, out, err = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--json",
                             "--max-chars", "10")
    assert code == 1 and "too small" in err
    assert json.loads(out) == {"prompt": "", "shown": 0, "omitted": 2, "needed": needed}


def test_tools_and_tool_names_choose_what_the_prompt_names(project, capsys) -> None:
    write_skill(project / ".agents" / "skills", "alpha", description="Alpha skill.")
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project))
    assert code == 0 and "load_skill(name)" in out and "read_skill(key)" in out
    assert "find_skills(query)" in out and "find_relevant" not in out
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--tools",
                           "library")
    assert "find_relevant(query)" in out and "load_skill" not in out
    code, out, _ = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--tools", "lazy",
                           "--tool-names", "find=search_skills,load=open_skill")
    assert "open_skill(name)" in out and "search_skills(query)" in out
    assert "read_skill" not in out and "find_skills" not in out
    code, out, err = run_cli(capsys, "skill", "prompt", "--cwd", str(project), "--tools",
                             "cursor")
    assert code == 2 and out == "" and "lemon-serve, lazy, library" in err
