"""Discovery end to end through the library: which roots are read, in what precedence, what
each winner shadows, and how the ``LEMON_*`` variables isolate a run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lemon_core import skills
from lemon_core.context import GLOBAL_SKILL_ROOTS, LemonContext
from tests.helpers import write_skill

PROJECT_DIRS = (".agents/skills", ".omp/skills", ".claude/skills", ".codex/skills",
                ".github/skills")
GLOBAL_DIRS = (".lemon/agent/skill", ".agents/skills", ".omp/agent/skills", ".claude/skills",
               ".codex/skills")


def _ctx(home: Path, cwd: Path, **env: str) -> LemonContext:
    return LemonContext(cwd=cwd, home=home, env={"PATH": os.environ.get("PATH", ""),
                                                  "LEMON_BUILTIN_SKILLS": "0", **env},
                        platform="linux")


def _winner(ctx: LemonContext, key: str = "dup") -> tuple[str, str, list[str]]:
    item = skills.list(ctx).get(key)
    assert item is not None, f"{key} is not listed"
    return item.entry.path, item.entry.scope, list(item.entry.shadowed)


def test_full_precedence_order(tmp_path: Path, home: Path) -> None:
    """cwd's .lemon/skill, then each directory nearest first in the per-directory order, then
    the global roots in order; the winner shadows all the others, in that order."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg" / "mod"
    cwd.mkdir(parents=True)
    order = [cwd / ".lemon" / "skill"]
    for directory in (cwd, repo / "pkg", repo):
        order += [directory / sub for sub in PROJECT_DIRS]
    order += [home / sub for sub in GLOBAL_DIRS]
    for root in reversed(order):  # written in reverse so no file-system order can help
        write_skill(root, "dup", description=f"from {root}")
    write_skill(repo / ".lemon" / "skill", "dup")  # only the working directory's is a root
    write_skill(tmp_path / ".agents" / "skills", "dup")  # above the repository root

    expected = [str(root / "dup" / "SKILL.md") for root in order]
    path, scope, shadowed = _winner(_ctx(home, cwd))
    assert (path, scope) == (expected[0], "project")
    assert shadowed == expected[1:]


@pytest.mark.parametrize("remove", range(1, 4))
def test_each_level_wins_once_the_nearer_ones_are_gone(tmp_path: Path, home: Path,
                                                       remove: int) -> None:
    """Nearest directory beats farther ones, project beats global, at every cut."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "sub"
    cwd.mkdir()
    levels = [cwd / ".github" / "skills", repo / ".agents" / "skills",
              home / ".lemon" / "agent" / "skill", home / ".codex" / "skills"]
    for root in levels[remove - 1:]:
        write_skill(root, "dup")
    path, scope, shadowed = _winner(_ctx(home, cwd))
    assert path == str(levels[remove - 1] / "dup" / "SKILL.md")
    assert scope == ("project" if remove <= 2 else "global")
    assert shadowed == [str(root / "dup" / "SKILL.md") for root in levels[remove:]]


def test_a_git_file_marks_the_repository_root(tmp_path: Path, home: Path) -> None:
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    inner = outer / "vendor" / "lib"  # a submodule or worktree: .git is a file
    (inner / "src").mkdir(parents=True)
    (inner / ".git").write_text("gitdir: ../../.git/modules/lib\n")
    write_skill(inner / ".claude" / "skills", "inner")
    write_skill(outer / ".agents" / "skills", "outer")
    listing = skills.list(_ctx(home, inner / "src"))
    assert [i.entry.key for i in listing.skills] == ["inner"]


def test_without_a_repository_only_the_working_directory(tmp_path: Path, home: Path) -> None:
    cwd = tmp_path / "plain" / "dir"
    cwd.mkdir(parents=True)
    write_skill(cwd / ".agents" / "skills", "here")
    write_skill(tmp_path / "plain" / ".agents" / "skills", "parent")
    assert [i.entry.key for i in skills.list(_ctx(home, cwd)).skills] == ["here"]


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_home_reached_through_a_link_is_still_not_a_project(tmp_path: Path) -> None:
    """``$HOME`` names a link to the real home; the working directory is the physical path
    (as ``os.getcwd()`` reports it). Home's skills are global, never project ones."""
    real = tmp_path / "data" / "me"
    (real / ".git").mkdir(parents=True)  # a dotfiles repository
    (real / "code").mkdir()
    link = tmp_path / "home-link"
    link.symlink_to(real, target_is_directory=True)
    write_skill(real / ".agents" / "skills", "mine")
    write_skill(real / ".lemon" / "skill", "lemon-in-home")
    listing = skills.list(_ctx(link, real / "code"))
    assert [(i.entry.key, i.entry.scope) for i in listing.skills] == [("mine", "global")]
    assert listing.get("mine").entry.shadowed == ()
    assert skills.list(_ctx(link, real)).skills[0].entry.scope == "global"


def test_agent_dir_isolates_and_moves_settings(tmp_path: Path, home: Path,
                                               project: Path) -> None:
    agent = tmp_path / "agent"
    write_skill(agent / "skill", "from-agent-dir")
    for sub in GLOBAL_DIRS:
        write_skill(home / sub, "from-" + sub.strip(".").replace("/", "-"))
    write_skill(project / ".agents" / "skills", "from-project")
    ctx = _ctx(home, project, LEMON_AGENT_DIR=str(agent))
    assert [i.entry.key for i in skills.list(ctx).skills] == ["from-agent-dir", "from-project"]
    skills.disable("from-agent-dir", ctx)
    assert (agent / "skills.json").is_file()
    assert not (home / ".lemon" / "agent" / "skills.json").exists()


@pytest.mark.parametrize("root_id, variable, below_home", GLOBAL_SKILL_ROOTS)
def test_each_override_names_its_root_and_isolates(tmp_path: Path, home: Path, project: Path,
                                                   root_id: str, variable: str,
                                                   below_home: tuple[str, ...] | None) -> None:
    for sub in GLOBAL_DIRS:
        write_skill(home / sub, "default-" + sub.strip(".").replace("/", "-"))
    override = tmp_path / f"override-{root_id}"
    write_skill(override, "overridden")
    listing = skills.list(_ctx(home, project, **{variable: str(override)}))
    assert [(i.entry.key, i.entry.root) for i in listing.skills] == [
        ("overridden", str(override))]


def test_an_empty_variable_counts_as_unset(home: Path, project: Path) -> None:
    write_skill(home / ".claude" / "skills", "claude-global")
    empty = {variable: "" for _, variable, _ in GLOBAL_SKILL_ROOTS}
    listing = skills.list(_ctx(home, project, LEMON_AGENT_DIR="", **empty))
    assert [i.entry.key for i in listing.skills] == ["claude-global"]


def test_a_broken_copy_does_not_shadow_and_is_reported(home: Path, project: Path) -> None:
    broken = write_skill(project / ".lemon" / "skill", "dup", "description: [not text]\n")
    write_skill(project / ".agents" / "skills", "dup")
    write_skill(home / ".agents" / "skills", "dup")
    listing = skills.list(_ctx(home, project))
    entry = listing.get("dup").entry
    assert entry.path == str(project / ".agents" / "skills" / "dup" / "SKILL.md")
    assert entry.shadowed == (str(home / ".agents" / "skills" / "dup" / "SKILL.md"),)
    assert [(d.path, d.code) for d in listing.diagnostics] == [(str(broken), "wrong_type")]


def test_new_roots_and_skills_are_noticed_without_refresh(home: Path, project: Path) -> None:
    """The identity check covers the set of folders: a root that did not exist, a new skill
    folder, a removed one; each shows on the next call after the 50 ms coalescing window."""
    import time

    ctx = _ctx(home, project)
    assert skills.list(ctx).skills == ()
    write_skill(project / ".github" / "skills", "late-project")
    time.sleep(0.06)
    assert [i.entry.key for i in skills.list(ctx).skills] == ["late-project"]
    write_skill(home / ".codex" / "skills", "late-global")
    time.sleep(0.06)
    assert [i.entry.key for i in skills.list(ctx).skills] == ["late-global", "late-project"]
    (project / ".github" / "skills" / "late-project" / "SKILL.md").unlink()
    time.sleep(0.06)
    assert [i.entry.key for i in skills.list(ctx).skills] == ["late-global"]


def test_the_persistent_cache_notices_a_new_root(home: Path, project: Path) -> None:
    """Across processes (a fresh in-process catalog stands for one), a cached snapshot is used
    only while nothing it was built from changed."""

    ctx = _ctx(home, project, LEMON_CACHE_DIR=str(home.parent / "cache"))
    write_skill(project / ".agents" / "skills", "first")
    assert [i.entry.key for i in skills.list(ctx, persistent=True).skills] == ["first"]
    write_skill(project / ".omp" / "skills", "second")
    listed = skills.list(ctx, persistent=True)
    assert [i.entry.key for i in listed.skills] == ["first", "second"]
