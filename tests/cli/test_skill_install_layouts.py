"""The layouts of published skill repositories that lemon's rules used to refuse, installed
from a real git repository served over loopback HTTP (``tests/gitserver.py``) with ``--all``:

- folders named unlike their skill (vercel-labs/agent-skills' ``react-best-practices`` holds
  ``vercel-react-best-practices``; anthropics' ``template`` holds ``template-skill``): installed
  under the skill's name, with a warning; the lockfile keeps the upstream folder, so
  ``outdated``, ``update`` and ``sync`` still find it; ``--skill`` takes either name;
- two folders whose skills share a name: both refused as a clash, the rest installs;
- a name that is a path: refused with its reason;
- a description over 1,024 characters (anthropics' ``claude-api``): installed with a warning
  naming the agents that refuse it, listed ``invalid``; over 4,096 bytes, refused;
- a skill nested in another (awesome-copilot's qdrant skills): part of its parent with
  ``--all``, installed on its own only when named.

Each installed result is then listed and linted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.gitserver import GitServer, build_repo, commit
from tests.helpers import run_cli

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _skill(name: str, description: str = "", body: str = "Body.\n") -> str:
    return (f"---\nname: {name}\ndescription: {description or 'Use when testing ' + name + '.'}"
            f"\n---\n{body}")


LONG = "Use when " + "checking a long description of a published skill " * 25  # 1,234 chars
HUGE = "Use when " + "😀" * 1100  # over the 4,096-byte cap

FILES: dict[str, Any] = {
    "README.md": "A published skills repository.\n",
    "skills/react-best-practices/SKILL.md": _skill("vercel-react-best-practices"),
    "skills/react-best-practices/rules/one.md": "A rule.\n",
    "skills/plain/SKILL.md": _skill("plain"),
    "template/SKILL.md": _skill("template-skill"),
    # two folders renamed onto one name: a clash
    "skills/twin-a/SKILL.md": _skill("twin"),
    "skills/twin-b/SKILL.md": _skill("twin"),
    # a name that is a path
    "skills/escape/SKILL.md": _skill("../escaped"),
    "skills/long-one/SKILL.md": _skill("long-one", LONG.strip()),
    "skills/huge/SKILL.md": _skill("huge", HUGE),
    # a skill with skills nested inside it
    "skills/scaling/SKILL.md": _skill("qdrant-scaling"),
    "skills/scaling/volume/SKILL.md": _skill("qdrant-volume"),
    "skills/scaling/volume/horizontal/SKILL.md": _skill("qdrant-horizontal"),
}
INSTALLED = ["long-one", "plain", "qdrant-scaling", "template-skill",
             "vercel-react-best-practices"]


@pytest.fixture
def env(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    return home / ".lemon" / "agent"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    repo, _ = build_repo(tmp_path / "published.git", FILES)
    with GitServer() as server:
        yield "git+" + server.add("octo/published.git", repo), repo
    repo.close()


def _installed(env: Path) -> list[str]:
    root = env / "skill"
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".")) \
        if root.is_dir() else []


def test_all_installs_every_skill_agents_load_and_names_each_refusal(capsys, env,
                                                                      served) -> None:
    url, _ = served
    code, out, err = run_cli(capsys, "skill", "install", url, "--all", "--approve", "--json")
    assert code == 1, err
    document = json.loads(out)
    assert sorted(i["key"] for i in document["installed"]) == INSTALLED == _installed(env)
    warnings = {i["key"]: i["warnings"] for i in document["installed"]}
    assert warnings["vercel-react-best-practices"] == [
        ("vercel-react-best-practices: installed as vercel-react-best-practices (its folder "
        "upstream is skills/react-best-practices); agents load it by that name, and update, "
        "outdated and sync follow the upstream folder")]
    assert "its folder upstream is template" in warnings["template-skill"][0]
    (long_warning,) = warnings["long-one"]
    assert "[long_description]" in long_warning and "Codex" in long_warning
    assert "Claude Code loads it" in long_warning and "lint --fix cannot" in long_warning
    assert warnings["plain"] == []
    assert "its folder upstream is skills/scaling" in warnings["qdrant-scaling"][0]
    failed = {f["folder"]: f for f in document["failed"]}
    assert sorted(failed) == ["skills/escape", "skills/huge", "skills/twin-a", "skills/twin-b"]
    assert "2 skills of the tree are named 'twin' (skills/twin-a, skills/twin-b)" in failed[
        "skills/twin-a"]["reason"]
    assert "is named '../escaped', which cannot be a skill folder's name" in failed[
        "skills/escape"]["reason"]
    assert "[too_long]" in failed["skills/huge"]["reason"]
    assert not (env / "escaped").exists() and not (env.parent / "escaped").exists()
    # the nested skills came as files of their parent, not as skills of their own
    assert (env / "skill" / "qdrant-scaling" / "volume" / "horizontal" / "SKILL.md").is_file()
    # the lockfile keeps each skill's upstream folder
    lock = json.loads((env / "skills.lock.json").read_text())["skills"]
    assert lock["vercel-react-best-practices"]["subdirectory"] == "skills/react-best-practices"
    assert lock["template-skill"]["subdirectory"] == "template"


def test_the_installed_skills_list_and_lint_cleanly(capsys, env, served) -> None:
    url, _ = served
    run_cli(capsys, "skill", "install", url, "--all", "--approve")
    code, out, err = run_cli(capsys, "skill", "list", "--json")
    assert code == 0, err
    document = json.loads(out)
    listed = {s["key"]: s for s in document["skills"] if s["scope"] != "builtin"}
    # renamed skills have name = folder once installed: they load, nothing to warn about
    assert sorted(listed) == [k for k in INSTALLED if k != "long-one"]
    assert {s["state"] for s in listed.values()} == {"active"}
    # the long description: lemon's catalog keeps it out (invalid), with its reason; and no
    # noise about the SKILL.md files inside the installed qdrant-scaling
    (diagnostic,) = document["diagnostics"]
    assert (diagnostic["key"], diagnostic["code"]) == ("long-one", "long_description")
    code, out, err = run_cli(capsys, "skill", "list")
    assert "long-one" in out and "invalid" in out
    for key in ("vercel-react-best-practices", "template-skill", "qdrant-scaling", "plain"):
        code, out, err = run_cli(capsys, "skill", "lint", str(env / "skill" / key))
        assert code == 0, out + err


def test_skill_takes_the_folder_or_the_name_and_a_nested_skill_only_when_named(
        capsys, env, served) -> None:
    url, _ = served
    code, out, err = run_cli(capsys, "skill", "install", url, "--skill", "react-best-practices",
                             "--approve", "--json")
    assert code == 0, err
    assert [i["key"] for i in json.loads(out)["installed"]] == ["vercel-react-best-practices"]
    code, out, err = run_cli(capsys, "skill", "install", url, "--skill",
                             "vercel-react-best-practices", "--force", "--approve", "--json")
    assert code == 0, err
    assert json.loads(out)["installed"][0]["replaced"] is True
    # a nested skill named explicitly installs as a skill of its own, by name or by folder
    code, out, err = run_cli(capsys, "skill", "install", url, "--skill", "qdrant-horizontal",
                             "--skill", "volume", "--approve", "--json")
    assert code == 0, err
    assert sorted(i["key"] for i in json.loads(out)["installed"]) == [
        "qdrant-horizontal", "qdrant-volume"]
    assert (env / "skill" / "qdrant-horizontal" / "SKILL.md").is_file()
    lock = json.loads((env / "skills.lock.json").read_text())["skills"]
    assert lock["qdrant-horizontal"]["subdirectory"] == "skills/scaling/volume/horizontal"


def test_list_shows_both_names_and_the_nested_skills_parent(capsys, env, served) -> None:
    url, _ = served
    code, out, err = run_cli(capsys, "skill", "install", url, "--list", "--approve")
    assert code == 0, err
    assert "9 skills and 2 nested in another, nothing installed" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()[2:] if line.strip()}
    assert rows["vercel-react-best-practices"][1:3] == ["skills/react-best-practices", "yes"]
    assert rows["qdrant-horizontal"][1:4] == ["skills/scaling/volume/horizontal", "(in",
                                              "skills/scaling)"]
    assert "qdrant-volume: inside skills/scaling (installed with it as its files; --skill " \
           "qdrant-volume installs it on its own)" in out
    assert "twin: another skill of the tree is named 'twin'" in out
    assert not (env / "skill").exists()


def test_outdated_update_and_sync_follow_the_upstream_folder(capsys, env, served) -> None:
    url, repo = served
    code, _, err = run_cli(capsys, "skill", "install", url, "--skill", "react-best-practices",
                           "--skill", "plain", "--approve")
    assert code == 0, err
    changed = {**FILES, "skills/react-best-practices/SKILL.md": _skill(
        "vercel-react-best-practices", body="Changed upstream.\n")}
    commit(repo, changed)
    code, out, err = run_cli(capsys, "skill", "outdated", "--json")
    status = {s["key"]: s["status"] for s in json.loads(out)["skills"]}
    assert status == {"plain": "current", "vercel-react-best-practices": "outdated"}, out + err
    code, out, err = run_cli(capsys, "skill", "update", "vercel-react-best-practices",
                             "--approve")
    assert code == 0, out + err
    installed = env / "skill" / "vercel-react-best-practices" / "SKILL.md"
    assert "Changed upstream." in installed.read_text()
    # a fresh home with only the lockfile: sync puts the skill back under its name
    import shutil

    shutil.rmtree(env / "skill" / "vercel-react-best-practices")
    code, out, err = run_cli(capsys, "skill", "sync", "--approve")
    assert code == 0, out + err
    assert "Changed upstream." in installed.read_text()
    assert not (env / "skill" / "react-best-practices").exists()


def test_a_folder_named_like_the_upstream_folder_does_not_stop_the_update(capsys, env,
                                                                          served) -> None:
    """The record's upstream folder (react-best-practices) is not the installed key: a folder
    of that name in the skills root, not lemon's, is none of the update's business."""
    url, repo = served
    code, _, err = run_cli(capsys, "skill", "install", url, "--skill", "react-best-practices",
                           "--approve")
    assert code == 0, err
    own = env / "skill" / "react-best-practices"
    own.mkdir()
    (own / "SKILL.md").write_text(_skill("react-best-practices"), encoding="utf-8")
    commit(repo, {**FILES, "skills/react-best-practices/SKILL.md": _skill(
        "vercel-react-best-practices", body="Changed upstream.\n")})
    code, out, err = run_cli(capsys, "skill", "update", "vercel-react-best-practices",
                             "--approve")
    assert code == 0, out + err
    assert "Changed upstream." in (env / "skill" / "vercel-react-best-practices" /
                                   "SKILL.md").read_text()
    assert (own / "SKILL.md").read_text() == _skill("react-best-practices")
