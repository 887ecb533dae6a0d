"""Long commands show progress: one ``lemon:`` line per skill on stderr without a terminal,
a bar on a terminal, nothing with ``-q``; ``--json`` stdout is never mixed with either."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_skill_install_terminal import _converse
from tests.helpers import run_cli, write_skill


@pytest.fixture
def agent(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home / ".lemon" / "agent"


def _tree(tmp_path: Path, keys=("one", "two", "three")) -> Path:
    for key in keys:
        write_skill(tmp_path / "tree" / "skills", key)
    return tmp_path / "tree"


def _lines(err: str, start: str) -> list[str]:
    return sorted(line for line in err.splitlines() if line.startswith(start))


def test_install_and_sync_print_a_line_per_skill(capsys, agent, tmp_path) -> None:
    tree = str(_tree(tmp_path))
    code, out, err = run_cli(capsys, "skill", "install", tree, "--all", "--approve")
    assert code == 0, err
    assert _lines(err, "lemon: installed ") == [f"lemon: installed {k} (global)"
                                               for k in ("one", "three", "two")]
    code, out, err = run_cli(capsys, "skill", "install", tree, "--all", "--approve", "--force",
                             "-q")
    assert code == 0 and err == "" and out.count("Replaced ") == 3
    code, out, err = run_cli(capsys, "skill", "install", tree, "--all", "--approve", "--force",
                             "--json")
    assert code == 0 and err == "" and len(json.loads(out)["installed"]) == 3
    for key in ("one", "two"):
        (agent / "skill" / key / "SKILL.md").unlink()
        (agent / "skill" / key).rmdir()
    code, out, err = run_cli(capsys, "skill", "sync", "--approve")
    assert code == 0, err
    assert _lines(err, "lemon: ") == ["lemon: installed one (global)",
                                      "lemon: installed two (global)"]
    assert run_cli(capsys, "skill", "sync", "--approve", "--quiet")[2] == ""


def test_audit_of_several_folders_prints_a_line_each(capsys, agent, tmp_path) -> None:
    tree = _tree(tmp_path, ("one", "two"))
    folders = [str(tree / "skills" / k) for k in ("one", "two")]
    code, out, err = run_cli(capsys, "skill", "audit", *folders)
    assert code == 0 and err.splitlines() == ["lemon: checked one (pass)",
                                              "lemon: checked two (pass)"]
    code, out, err = run_cli(capsys, "skill", "audit", "-q", *folders)
    assert code == 0 and err == "" and "PASS" in out
    code, out, err = run_cli(capsys, "skill", "audit", "--json", *folders)
    assert code == 0 and err == "" and len(json.loads(out)["results"]) == 2


def test_a_terminal_gets_a_bar_naming_each_skill_and_quiet_none(home, tmp_path) -> None:
    tree = str(_tree(tmp_path))
    code, screen = _converse(["skill", "install", tree, "--all", "--approve"], home, tmp_path,
                             [])
    assert code == 0, screen
    assert "checking one" in screen or "checking three" in screen or "checking two" in screen
    assert "lemon: installed" not in screen  # the bar, not the lines, on a terminal
    code, screen = _converse(["skill", "install", tree, "--all", "--approve", "--force", "-q"],
                             home, tmp_path, [])
    assert code == 0 and "checking" not in screen and "━" not in screen
    assert screen.count("Replaced ") == 3


def test_several_skills_are_reported_to_the_progress_callback(agent, tmp_path) -> None:
    from lemon_core.skills.installing import install

    seen: list[tuple[int, int | None, str]] = []
    install(str(_tree(tmp_path)), cwd=tmp_path, approve=True, all_skills=True,
            progress=lambda done, total, message: seen.append((done, total, message)))
    checking = [s for s in seen if s[2].startswith("checking ")]
    assert checking == [(0, 3, "checking one"), (1, 3, "checking three"),
                        (2, 3, "checking two")]


def test_sync_and_update_on_a_terminal_name_each_skill_in_the_bar(home, tmp_path) -> None:
    tree = str(_tree(tmp_path, ("one", "two")))
    assert _converse(["skill", "install", tree, "--all", "--approve", "-q"], home, tmp_path,
                     [])[0] == 0
    skills = home / ".lemon" / "agent" / "skill"
    for key in ("one", "two"):
        (skills / key / "SKILL.md").unlink()
        (skills / key).rmdir()
    code, screen = _converse(["skill", "sync", "--approve"], home, tmp_path, [])
    assert code == 0, screen
    assert "installed two (global)" in screen and "lemon: installed" not in screen
    code, screen = _converse(["skill", "update", "--approve", "--force"], home, tmp_path, [])
    assert code == 0, screen
    assert "two (global): updated" in screen and "Updated two (global)" in screen
