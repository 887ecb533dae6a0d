"""``lemon skill install SOURCE --list``: the table, the JSON rows, the refusals; and the
``owner/repo`` shorthand on the command line (over the loopback git server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gitserver import GitServer, build_repo
from tests.helpers import run_cli, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def env(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    return home / ".lemon" / "agent"


def _tree(root: Path) -> Path:
    write_skill(root, "alpha", description="Use when alpha.")
    write_skill(root, "mismatch", name="other")
    write_skill(root, "evil", description="Looks \u202eflipped")  # lemon refuses it
    write_skill(root, "ansi", description="Looks \x1b[31mred")
    write_skill(root, "alpha/inner", name="inner-skill")  # a skill inside another skill
    return root


def test_the_table_lists_every_skill_and_installs_nothing(capsys, env, tmp_path) -> None:
    tree = _tree(tmp_path / "tree")
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list", "--approve")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].endswith("(local, trust trusted): 4 skills and 1 nested in another, "
                             "nothing installed")
    assert lines[1].split() == ["KEY", "FOLDER", "VALID", "AUDIT", "DESCRIPTION"]
    assert lines[2].split()[:5] == ["alpha", "alpha", "yes", "pass", "Use"]
    assert lines[3].split()[:6] == ["inner-skill", "alpha/inner", "(in", "alpha)", "yes", "pass"]
    assert lines[4].split()[:4] == ["ansi", "ansi", "no", "block"]  # YAML refuses it
    assert lines[5].split()[:4] == ["evil", "evil", "no", "block"]
    # a folder named unlike its skill: both shown, and it installs under the skill's name
    assert lines[6].split()[:4] == ["other", "mismatch", "yes", "pass"]
    assert "\x1b" not in out and "\u202e" not in out
    assert "evil: the SKILL.md of 'evil' is invalid: description contains the control or " \
           "bidi character U+202E" in out
    assert "other: installed as other (its folder upstream is mismatch)" in out
    assert "inner-skill: inside alpha (installed with it as its files; --skill inner-skill " \
           "installs it on its own)" in out
    assert "--skill NAME (or --all)" in out
    assert not (env / "skill").exists() and not (env / "skills.lock.json").exists()


def test_json_rows(capsys, env, tmp_path) -> None:
    tree = _tree(tmp_path / "tree")
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list", "--approve",
                             "--json")
    assert code == 0, err
    document = json.loads(out)
    assert document["source"] == "local" and document["canonical_id"] == str(tree)
    rows = {r["folder"]: r for r in document["skills"]}
    assert rows["alpha"] == {"key": "alpha", "folder": "alpha",
                             "description": "Use when alpha.", "valid": True, "reason": None,
                             "verdict": "pass", "findings": [], "warnings": [],
                             "inside": None}
    assert rows["mismatch"]["valid"] is True and rows["mismatch"]["key"] == "other"
    assert "its folder upstream is mismatch" in rows["mismatch"]["warnings"][0]
    assert rows["alpha/inner"]["inside"] == "alpha" and rows["alpha/inner"]["valid"] is True
    assert rows["evil"]["valid"] is False and rows["evil"]["description"] is None
    assert not (env / "skill").exists()


def test_without_approval_nothing_is_fetched(capsys, env, tmp_path) -> None:
    tree = _tree(tmp_path / "tree")
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list")
    assert code == 1 and out == "" and "needs approval" in err


def test_list_refuses_the_install_options(capsys, env, tmp_path) -> None:
    tree = _tree(tmp_path / "tree")
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list", "--all",
                             "--skill", "alpha", "--approve")
    assert code == 2 and out == "" and "--list installs nothing; leave out --skill, --all" in err
    assert not (env / "skill").exists()


def test_owner_repo_that_is_a_folder_here_is_refused(capsys, env, tmp_path,
                                                     monkeypatch) -> None:
    write_skill(tmp_path / "octo" / "skills", "alpha")
    code, out, err = run_cli(capsys, "skill", "install", "octo/skills", "--approve",
                             "--cwd", str(tmp_path))
    assert code == 2 and out == ""
    assert ("./octo/skills is a folder here; use ./octo/skills for the folder or "
            "gh:octo/skills for GitHub") in err
    write_skill(tmp_path / "a" / "b", "c")
    code, out, err = run_cli(capsys, "skill", "install", "a/b/c", "--list", "--approve",
                             "--cwd", str(tmp_path))
    assert code == 2 and "use ./a/b/c for the folder" in err
    assert not (env / "skill").exists()


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GitServer]:
    skill = "---\nname: {0}\ndescription: Use when {0}.\n---\nBody.\n"
    repo, _ = build_repo(tmp_path / "r", {"skills/pdf/SKILL.md": skill.format("pdf"),
                                          "skills/xlsx/SKILL.md": skill.format("xlsx")})
    with GitServer() as server:
        server.add("octo/skills.git", repo)
        monkeypatch.setenv("LEMON_GITHUB_URL", server.url)
        yield server


def test_owner_repo_is_github(capsys, env, tmp_path, github, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "skill", "install", "octo/skills", "--list", "--approve",
                             "--json")
    assert code == 0, err
    document = json.loads(out)
    assert (document["source"], document["canonical_id"]) == ("gh", "octo/skills")
    assert [r["key"] for r in document["skills"]] == ["pdf", "xlsx"]
    assert not (env / "skill").exists()
    code, out, err = run_cli(capsys, "skill", "install", "octo/skills", "--skill", "pdf",
                             "--approve", "--json")
    assert code == 0, err
    (item,) = json.loads(out)["installed"]
    assert (item["key"], item["source"], item["identifier"]) == ("pdf", "gh", "gh:octo/skills")
    lock = json.loads((env / "skills.lock.json").read_text())
    assert "gh:octo/skills" in json.dumps(lock) and '"octo/skills"' in json.dumps(lock)


def test_a_terminal_is_asked_before_the_fetch(capsys, env, tmp_path, monkeypatch) -> None:
    import io

    from lemon_core.cli import skill_install

    tree = _tree(tmp_path / "tree")
    monkeypatch.setattr(skill_install, "_interactive", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list")
    assert code == 1 and out == "" and "was not approved" in err
    assert "into a private staging folder to list its skills; nothing is installed" in err
    assert "Fetch it? [y/N]" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code, out, err = run_cli(capsys, "skill", "install", str(tree), "--list")
    assert code == 0 and "4 skills and 1 nested in another, nothing installed" in out, err
    assert not (env / "skill").exists()
