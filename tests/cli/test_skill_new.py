"""``lemon skill new NAME``: a skill folder whose SKILL.md passes ``lemon skill lint`` and
``lint --standard`` as written; an existing folder is refused untouched (exit 1), an invalid
name is refused with the rule (exit 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.install.support import snapshot


@pytest.fixture
def agent(cli_project: Path) -> Path:
    return Path(os.environ["HOME"]) / ".lemon" / "agent"


def test_a_new_skill_passes_both_lints_and_is_listed(capsys, cli_project, agent) -> None:
    code, out, err = run_cli(capsys, "skill", "new", "pdf-forms", "--cwd", str(cli_project))
    assert code == 0, err
    folder = agent / "skill" / "pdf-forms"
    assert out.startswith(f"Created {folder / 'SKILL.md'}\n")
    for extra in ((), ("--standard",), ("--strict",)):
        code, out, err = run_cli(capsys, "skill", "lint", *extra, str(folder))
        assert code == 0 and out.startswith("ok "), (extra, out, err)
    text = (folder / "SKILL.md").read_text()
    assert "name: pdf-forms\n" in text and "description: Replace this description" in text
    code, out, _ = run_cli(capsys, "skill", "list", "--json", "--cwd", str(cli_project))
    assert "pdf-forms" in [s["key"] for s in json.loads(out)["skills"]]


def test_local_and_path_and_json(capsys, cli_project, tmp_path) -> None:
    code, out, _ = run_cli(capsys, "skill", "new", "here", "--local", "--json", "--cwd",
                           str(cli_project))
    assert code == 0
    made = json.loads(out)
    assert made["path"] == str(cli_project / ".lemon" / "skill" / "here")
    assert Path(made["skill_md"]).is_file()
    code, _, _ = run_cli(capsys, "skill", "new", "there", "--path", "skills", "--cwd",
                         str(cli_project))
    assert code == 0 and (cli_project / "skills" / "there" / "SKILL.md").is_file()
    code, _, err = run_cli(capsys, "skill", "new", "both", "--local", "--path", "x")
    assert code == 2 and "--local or --path" in err


def test_an_existing_folder_is_refused_untouched(capsys, cli_project, agent) -> None:
    folder = agent / "skill" / "taken"
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("mine\n")
    before = snapshot(agent)
    code, out, err = run_cli(capsys, "skill", "new", "taken", "--cwd", str(cli_project))
    assert code == 1 and out == "" and "already exists; nothing was changed" in err
    assert snapshot(agent) == before
    (agent / "skill" / "link").symlink_to(folder)
    code, _, err = run_cli(capsys, "skill", "new", "link", "--cwd", str(cli_project))
    assert code == 1 and not (folder / "SKILL.md").exists()


@pytest.mark.parametrize("name", ["My-Tool", "-x", "a--b", "a_b", "x" * 65, "a/b", "é"])
def test_an_invalid_name_is_refused_with_the_rule(capsys, cli_project, agent, name) -> None:
    code, out, err = run_cli(capsys, "skill", "new", "--cwd", str(cli_project), "--", name)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "is not a skill name" in err and "a-z, 0-9 and single hyphens" in err
    assert not (agent / "skill").exists() or not any((agent / "skill").iterdir())


def test_a_planted_link_in_the_project_is_not_followed(capsys, cli_project, tmp_path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cli_project / ".lemon").symlink_to(elsewhere)
    code, _, err = run_cli(capsys, "skill", "new", "here", "--local", "--cwd", str(cli_project))
    assert code == 1 and "link" in err
    assert list(elsewhere.iterdir()) == []


def test_a_name_with_an_escape_sequence_is_shown_escaped_once(capsys, cli_project) -> None:
    code, _, err = run_cli(capsys, "skill", "new", "--cwd", str(cli_project), "--", "a\x1b[31mb")
    assert code == 2 and "\x1b" not in err
    assert "'a\\x1b[31mb' is not a skill name" in err
