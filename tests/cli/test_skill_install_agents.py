"""``lemon skill install --agent NAME [--copy]`` and what list, remove and sync say about the
targets, in process with a home of the test's own."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill


@pytest.fixture
def skill(tmp_path: Path, cli_project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(cli_project)
    write_skill(tmp_path / "src", "demo")
    return tmp_path / "src" / "demo"


def test_agent_links_and_json_lists_the_targets(capsys, skill, home) -> None:
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "claude",
                             "--agent", "agents", "--approve", "--json")
    assert code == 0, err
    (item,) = json.loads(out)["installed"]
    assert item["path"] == str(home / ".lemon" / "agent" / "skill" / "demo")
    assert [(t["agent"], t["mode"], t["action"], t["path"]) for t in item["targets"]] == [
        ("claude", "link", "linked", str(home / ".claude" / "skills" / "demo")),
        ("agents", "link", "linked", str(home / ".agents" / "skills" / "demo"))]
    assert item["targets_failed"] == []
    assert {"key", "path", "scope", "replaced", "warnings"} <= set(item)  # kept keys
    code, out, err = run_cli(capsys, "skill", "list", "--json")
    rows = [s for s in json.loads(out)["skills"] if s["key"] == "demo"]
    assert len(rows) == 1 and rows[0]["shadowed"] == []
    assert [t["agent"] for t in rows[0]["targets"]] == ["claude", "agents"]


def test_human_output_of_a_local_copy(capsys, skill, cli_project) -> None:
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--local", "--agent",
                             "github", "--copy", "--approve")
    assert code == 0, err
    assert f"Copied {cli_project / '.github' / 'skills' / 'demo'} (github)" in out
    assert (cli_project / ".github" / "skills" / "demo" / "SKILL.md").is_file()
    code, out, err = run_cli(capsys, "skill", "list")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["demo"]


def test_bad_agent_names_exit_2(capsys, skill, home) -> None:
    code, _, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "cursor",
                           "--approve")
    assert code == 2 and "unknown agent 'cursor'" in err and "agents, omp, claude" in err
    code, _, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "github",
                           "--approve")
    assert code == 2 and "--local" in err
    code, _, err = run_cli(capsys, "skill", "install", str(skill), "--copy", "--approve")
    assert code == 2 and "--agent" in err
    code, _, err = run_cli(capsys, "skill", "install", str(skill), "--list", "--agent",
                           "claude", "--approve")
    assert code == 2 and "--agent" in err
    assert not (home / ".lemon" / "agent" / "skill" / "demo").exists()


def test_a_users_folder_at_the_target_fails_that_target_only(capsys, skill, home) -> None:
    write_skill(home / ".claude" / "skills", "demo", body="Mine.\n")
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "claude",
                             "--agent", "codex", "--approve")
    assert code == 1
    assert out.startswith("Installed demo")
    assert "failed: demo was not placed in" in err and "lemon skill sync" in err
    assert (home / ".claude" / "skills" / "demo" / "SKILL.md").read_text().endswith("Mine.\n")
    assert (home / ".codex" / "skills" / "demo").is_symlink()
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "claude",
                             "--approve", "--force", "--json")
    assert code == 1
    (item,) = json.loads(out)["installed"]
    (failed,) = item["targets_failed"]
    assert failed["agent"] == "claude" and failed["reason"] and failed["next"]


def test_a_planted_claude_link_is_refused_naming_it(capsys, skill, cli_project,
                                                    tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (cli_project / ".claude").symlink_to(outside)
    code, _, err = run_cli(capsys, "skill", "install", str(skill), "--local", "--agent",
                           "claude", "--approve")
    assert code == 1 and str(cli_project / ".claude") in err and "symbolic link" in err
    assert list(outside.iterdir()) == []
    assert not (cli_project / ".lemon" / "skill" / "demo").exists()


def test_remove_and_sync_keep_the_targets_in_step(capsys, skill, home) -> None:
    run_cli(capsys, "skill", "install", str(skill), "--agent", "claude", "--approve")
    link = home / ".claude" / "skills" / "demo"
    link.unlink()
    code, out, err = run_cli(capsys, "skill", "sync", "--approve", "--json")
    assert code == 0, err
    assert [p["agent"] for p in json.loads(out)["placed"]] == ["claude"]
    assert link.is_symlink()
    code, out, err = run_cli(capsys, "skill", "remove", "demo", "--approve", "--json")
    assert code == 0, err
    removed = json.loads(out)["removed"]
    assert [t["path"] for t in removed["targets_removed"]] == [str(link)]
    assert removed["targets_left"] == [] and not os.path.lexists(link)


def test_sync_agent_adds_a_root_to_what_is_installed(capsys, skill, home) -> None:
    run_cli(capsys, "skill", "install", str(skill), "--approve")
    code, out, err = run_cli(capsys, "skill", "sync", "--agent", "codex", "--copy",
                             "--approve")
    assert code == 0, err
    assert f"Copied {home / '.codex' / 'skills' / 'demo'} (codex)" in out
    code, _, err = run_cli(capsys, "skill", "sync", "--frozen", "--agent", "codex")
    assert code == 2 and "--frozen" in err


def test_a_control_character_in_a_foreign_link_is_escaped_on_the_terminal_only(
        capsys, skill, home) -> None:
    (home / ".claude" / "skills").mkdir(parents=True)
    (home / ".claude" / "skills" / "demo").symlink_to("/tmp/evil\x1b[2Jname")
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "claude",
                             "--approve")
    assert code == 1 and "\x1b" not in err and "\\x1b[2Jname" in err
    code, out, err = run_cli(capsys, "skill", "install", str(skill), "--agent", "claude",
                             "--approve", "--force", "--json")
    (failed,) = json.loads(out)["installed"][0]["targets_failed"]
    assert "/tmp/evil\x1b[2Jname" in failed["reason"]  # JSON stays exact
