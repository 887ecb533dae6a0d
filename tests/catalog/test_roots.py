import os
from pathlib import Path

from lemon_core.catalog.roots import (
    find_repo_root,
    global_roots,
    project_roots,
    skill_roots,
    world_writable_warning,
)


def _paths(roots):
    return [(r.scope, r.id, r.path) for r in roots]


def test_repo_root_from_git_dir_and_git_file(tmp_path: Path) -> None:
    (tmp_path / "a" / ".git").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    assert find_repo_root(tmp_path / "a" / "b" / "c") == tmp_path / "a"
    (tmp_path / "w" / "x").mkdir(parents=True)
    (tmp_path / "w" / ".git").write_text("gitdir: /elsewhere\n")  # a worktree
    assert find_repo_root(tmp_path / "w" / "x") == tmp_path / "w"


def test_project_roots_walk_up_to_repo_root_nearest_first(make_ctx, project: Path) -> None:
    sub = project / "pkg" / "mod"
    sub.mkdir(parents=True)
    roots = project_roots(make_ctx(cwd=sub))
    assert roots[0].path == sub / ".lemon" / "skill"
    ids = [(r.path.parent.parent, r.id) for r in roots[1:]]
    expected_dirs = [sub, project / "pkg", project]
    expected = [(d, i) for d in expected_dirs
                for i in ("agents", "omp", "claude", "codex", "github")]
    assert ids == expected
    assert all(r.scope == "project" for r in roots)
    assert not any(project.parent in r.path.parents and r.path.parent.parent == project.parent
                   for r in roots)


def test_without_repository_only_the_working_directory(make_ctx, tmp_path: Path) -> None:
    cwd = tmp_path / "plain" / "dir"
    cwd.mkdir(parents=True)
    roots = project_roots(make_ctx(cwd=cwd))
    assert {r.path.parent.parent for r in roots} == {cwd}


def test_home_is_never_a_project_directory(make_ctx, home: Path) -> None:
    (home / ".git").mkdir()  # a dotfiles repository
    assert project_roots(make_ctx(cwd=home)) == []
    sub = home / "code"
    sub.mkdir()
    roots = project_roots(make_ctx(cwd=sub))
    assert roots and all(r.path.parent.parent == sub for r in roots)


def test_global_roots_default_order(make_ctx, home: Path) -> None:
    roots = global_roots(make_ctx())
    assert _paths(roots) == [
        ("global", "lemon", home / ".lemon" / "agent" / "skill"),
        ("global", "agents", home / ".agents" / "skills"),
        ("global", "omp", home / ".omp" / "agent" / "skills"),
        ("global", "claude", home / ".claude" / "skills"),
        ("global", "codex", home / ".codex" / "skills"),
    ]


def test_agent_dir_isolates_the_other_global_roots(make_ctx, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    roots = global_roots(make_ctx(LEMON_AGENT_DIR=str(agent)))
    assert _paths(roots) == [("global", "lemon", agent / "skill")]


def test_an_override_isolates_and_names_its_root(make_ctx, tmp_path: Path, home: Path) -> None:
    claude = tmp_path / "claude-skills"
    roots = global_roots(make_ctx(LEMON_CLAUDE_SKILLS_DIR=str(claude)))
    assert _paths(roots) == [("global", "claude", claude)]
    roots = global_roots(make_ctx(LEMON_AGENT_DIR="~/agent",
                                  LEMON_HARNESS_SKILLS_DIR="~/shared"))
    assert _paths(roots) == [("global", "lemon", home / "agent" / "skill"),
                             ("global", "agents", home / "shared")]


def test_skill_roots_project_first_and_unique(make_ctx, project: Path) -> None:
    roots = skill_roots(make_ctx())
    scopes = [r.scope for r in roots]
    assert scopes == sorted(scopes, key=lambda s: s != "project")
    assert len({r.path for r in roots}) == len(roots)
    assert all(r.scope == "global" for r in skill_roots(make_ctx(), project=False))


def test_a_world_writable_lemon_folder_is_a_warning(make_ctx, project: Path) -> None:
    """Issue 17 §2: anyone on the machine could plant skills or links in it."""
    from lemon_core.skills.api import list_skills

    (project / ".lemon" / "skill").mkdir(parents=True)
    os.chmod(project / ".lemon", 0o777)
    found = {d.code: d for d in list_skills(make_ctx()).diagnostics}
    assert found["world_writable"].path == str(project / ".lemon")
    assert world_writable_warning(make_ctx()) is not None
    os.chmod(project / ".lemon", 0o1777)  # sticky: others cannot replace what is there
    assert world_writable_warning(make_ctx()) is None
    os.chmod(project / ".lemon", 0o755)  # a chmod clears it at once (nothing cached)
    assert "world_writable" not in {d.code for d in list_skills(make_ctx()).diagnostics}
