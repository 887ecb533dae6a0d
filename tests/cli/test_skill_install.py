"""``lemon skill install`` / ``remove``: in-process for the outputs, and the real ``lemon``
in several processes at once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_cli, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def env(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(home))
    return home / ".lemon" / "agent"


def test_without_a_terminal_or_approve_nothing_is_fetched(capsys, env, tmp_path) -> None:
    write_skill(tmp_path / "src", "demo")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"))
    assert code == 1 and out == ""
    assert "needs approval" in err and "--approve" in err and err.count("\n") == 1
    assert not (env / "skill").exists() or not any((env / "skill").iterdir())


def test_install_json_and_human_output(capsys, env, tmp_path) -> None:
    write_skill(tmp_path / "src", "demo")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--approve", "--json")
    assert code == 0, err
    document = json.loads(out)
    (item,) = document["installed"]
    assert item["key"] == "demo" and item["scope"] == "global" and item["source"] == "local"
    assert item["trust"] == "trusted" and item["bundle_hash"].startswith("sha256:")
    assert set(item) >= {"path", "identifier", "revision", "verdict", "findings", "notes",
                         "replaced"}
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--approve", "--force")
    assert code == 0 and out.startswith("Replaced demo (trusted, audit ")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--approve")
    assert code == 1 and "--force" in err


def test_exit_2_for_an_unknown_identifier_and_an_unchosen_tree(capsys, env, tmp_path) -> None:
    code, _, err = run_cli(capsys, "skill", "install", "not-a-source", "--approve")
    assert code == 2 and "accepted forms" in err
    write_skill(tmp_path / "tree", "one")
    write_skill(tmp_path / "tree", "two")
    code, _, err = run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--approve")
    assert code == 2 and "--skill NAME" in err and "--all" in err
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--approve",
                             "--skill", "two", "--json")
    assert code == 0 and [i["key"] for i in json.loads(out)["installed"]] == ["two"]


def test_names_from_the_skill_are_escaped(capsys, env, tmp_path) -> None:
    folder = tmp_path / "src" / "demo"
    write_skill(tmp_path / "src", "demo")
    (folder / "evil\x1b]0;title\x07.md").write_text("x")
    code, out, err = run_cli(capsys, "skill", "install", str(folder), "--approve")
    assert code == 1 and "\\x1b" in err
    assert "\x1b" not in out + err and "\x07" not in out + err


def test_remove(capsys, env, tmp_path) -> None:
    write_skill(tmp_path / "src", "demo")
    run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"), "--approve")
    code, _, err = run_cli(capsys, "skill", "remove", "demo")
    assert code == 1 and "needs approval" in err and (env / "skill" / "demo").exists()
    code, out, _ = run_cli(capsys, "skill", "remove", "demo", "--approve", "--json")
    assert code == 0 and json.loads(out)["removed"]["key"] == "demo"
    assert not (env / "skill" / "demo").exists()
    code, _, err = run_cli(capsys, "skill", "remove", "demo", "--approve")
    assert code == 1 and "is installed" in err
    code, _, _ = run_cli(capsys, "skill", "remove", "demo", "--local", "--global")
    assert code == 2


def test_installs_in_several_processes_keep_every_record(home: Path, tmp_path: Path) -> None:
    lemon = shutil.which("lemon")
    assert lemon is not None
    names = [f"skill-{i}" for i in range(8)]
    for name in names:
        write_skill(tmp_path / "src", name)
    env = {**os.environ, "HOME": str(home), "LEMON_CACHE_DIR": str(tmp_path / "cache")}
    running = [subprocess.Popen([lemon, "skill", "install", str(tmp_path / "src" / name),
                                 "--approve", "--json"], env=env, cwd=tmp_path,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
               for name in names]
    for process in running:
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err.decode()
    lock = json.loads((home / ".lemon" / "agent" / "skills.lock.json").read_text())
    assert sorted(lock["skills"]) == names
    installed = sorted(p.name for p in (home / ".lemon" / "agent" / "skill").iterdir())
    assert installed == names  # no staging, backup or lock folder left


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch):
    """The prompts of a terminal session, answered from ``answers`` (one per line)."""
    import io

    from lemon_core.cli import skill_install

    def answer(text: str) -> None:
        monkeypatch.setattr(skill_install, "_interactive", lambda: True)
        monkeypatch.setattr("sys.stdin", io.StringIO(text))

    return answer


def test_a_terminal_is_asked_with_the_details(capsys, env, tmp_path, terminal) -> None:
    write_skill(tmp_path / "src", "demo")
    (tmp_path / "src" / "demo" / "notes.md").write_text("WARN me not\n")
    terminal("y\nn\n")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"))
    assert code == 1 and "not approved" in err
    assert "Fetch it into a private staging folder" in err and "Install it?" in err
    assert "files (2): SKILL.md, notes.md" in err and "trust trusted" in err
    assert not (env / "skill" / "demo").exists()
    terminal("y\ny\n")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"))
    assert code == 0 and out.startswith("Installed demo"), err
    terminal("y\n")
    code, out, err = run_cli(capsys, "skill", "remove", "demo")
    assert code == 0 and "Remove it" in err and not (env / "skill" / "demo").exists()


def test_a_terminal_picks_from_a_tree(capsys, env, tmp_path, terminal) -> None:
    for name in ("one", "two", "three"):
        write_skill(tmp_path / "tree", name)
    terminal("y\n1 3\ny\n")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "tree"), "--json")
    assert code == 0, err
    assert [i["key"] for i in json.loads(out)["installed"]] == ["one", "two"]
    assert "1. one" in err and "3. two" in err


def test_force_never_replaces_a_hand_written_skill(capsys, env, tmp_path) -> None:
    """Issue 17 §3: the refusal says what is there and does not steer to --force."""
    write_skill(tmp_path / "src", "demo")
    mine = env / "skill" / "demo"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: demo\ndescription: mine\n---\nMine.\n")
    for extra in ((), ("--force",)):
        code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                                 "--approve", *extra)
        assert code == 1 and out == ""
        assert "a skill folder lemon did not install" in err and "Replaced" not in out
        assert "pass force=True" not in err and "Move or rename it" in err
    assert (mine / "SKILL.md").read_text().endswith("Mine.\n")


def test_force_names_local_edits_and_keeps_them(capsys, env, tmp_path) -> None:
    write_skill(tmp_path / "src", "demo")
    code, _, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                           "--approve")
    assert code == 0, err
    (env / "skill" / "demo" / "mine.md").write_text("my notes\n")
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--approve", "--force")
    assert code == 1 and "added mine.md" in err and "--discard-edits" in err
    assert (env / "skill" / "demo" / "mine.md").exists()
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--approve", "--force", "--discard-edits")
    assert code == 0 and out.startswith("Replaced demo")
    assert not (env / "skill" / "demo" / "mine.md").exists()


def test_a_terminal_is_asked_before_local_edits_are_discarded(capsys, env, tmp_path,
                                                              terminal) -> None:
    write_skill(tmp_path / "src", "demo")
    assert run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                   "--approve")[0] == 0
    (env / "skill" / "demo" / "mine.md").write_text("my notes\n")
    terminal("y\nn\n")  # fetch: yes; discard: no
    code, out, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                             "--force")
    assert code == 1 and "DISCARD these local edits" in err and "added mine.md" in err
    assert "not approved" in err and (env / "skill" / "demo" / "mine.md").exists()
