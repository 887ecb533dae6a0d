"""LemonContext: where lemon runs, and whether its home can be used."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lemon_core.context import LemonContext


def _ctx(tmp_path: Path, home: str | Path, **env: str) -> LemonContext:
    return LemonContext(cwd=tmp_path, home=home, env={"LEMON_BUILTIN_SKILLS": "0", **env},
                        platform="linux")


def test_an_existing_absolute_home_is_usable(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, tmp_path)
    assert ctx.home_problem is None
    assert ctx.usable_agent_dir == tmp_path / ".lemon" / "agent"


@pytest.mark.parametrize(("make", "reason"), [
    (lambda p: "relhome", "is not an absolute path"),
    (lambda p: p / "nonexistent" / "x", "does not exist"),
    (lambda p: (p / "file").write_text("x") and p / "file", "is not a directory"),
    (lambda p: (p / "file").write_text("x") and p / "file" / "below", "does not exist"),
])
def test_an_unusable_home_is_a_problem_and_has_no_agent_dir(tmp_path: Path, make, reason) -> None:
    ctx = _ctx(tmp_path, make(tmp_path))
    assert ctx.home_problem == reason
    assert ctx.usable_agent_dir is None


def test_a_relative_home_stays_relative(tmp_path: Path) -> None:
    assert _ctx(tmp_path, "relhome").home == Path("relhome")
    ctx = LemonContext.from_environment(tmp_path, env={"HOME": "relhome"})
    assert ctx.home_problem == "is not an absolute path"


def test_an_agent_dir_override_stays_usable_without_home(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path, "relhome", LEMON_AGENT_DIR=str(tmp_path / "agent"))
    assert ctx.usable_agent_dir == tmp_path / "agent"
    assert _ctx(tmp_path, "relhome", LEMON_AGENT_DIR="~/agent").usable_agent_dir is None


def test_home_problem_creates_nothing(tmp_path: Path) -> None:
    before = sorted(os.listdir(tmp_path))
    assert _ctx(tmp_path, tmp_path / "a" / "b").home_problem == "does not exist"
    assert sorted(os.listdir(tmp_path)) == before


def test_global_roots_below_an_unusable_home_are_absent(tmp_path: Path) -> None:
    from lemon_core.catalog.roots import global_roots

    assert [r.id for r in global_roots(_ctx(tmp_path, tmp_path))] == [
        "lemon", "agents", "omp", "claude", "codex"]
    assert global_roots(_ctx(tmp_path, "relhome")) == []
    named = _ctx(tmp_path, tmp_path / "missing", LEMON_CLAUDE_SKILLS_DIR=str(tmp_path / "c"))
    assert [(r.id, r.path) for r in global_roots(named)] == [("claude", tmp_path / "c")]
    below_home = _ctx(tmp_path, "relhome", LEMON_CLAUDE_SKILLS_DIR="~/claude")
    assert global_roots(below_home) == []


# -- the CLI under an unusable home: a diagnostic, the rest listed, nothing created ----------


def _tree_of(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("home", ["relhome", "{tmp}/nonexistent/x", "{tmp}/a-file"])
def test_listing_under_an_unusable_home_creates_nothing(tmp_path: Path, home: str) -> None:
    from tests.state.hostile import lemon, project_with_a_skill

    project = project_with_a_skill(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    before = _tree_of(tmp_path)
    status, out, err, _ = lemon(project, "skill", "list", home=home.format(tmp=tmp_path))
    assert status == 0, err
    assert "ok" in out.split() and "Traceback" not in err
    assert "[unusable_home]" in err and "the home directory" in err
    assert _tree_of(tmp_path) == before


def test_a_global_change_under_an_unusable_home_is_refused(tmp_path: Path) -> None:
    from tests.state.hostile import lemon, project_with_a_skill

    project = project_with_a_skill(tmp_path)
    before = _tree_of(tmp_path)
    status, _, err, _ = lemon(project, "skill", "disable", "ok", home="relhome")
    assert status == 1 and "Traceback" not in err
    assert "home directory relhome is not an absolute path" in err
    assert _tree_of(tmp_path) == before
