"""The project scope is reached without following a planted link (issue 17 §2): a cloned
repository's ``.lemon/skill -> ~/.claude/skills`` or ``.lemon -> elsewhere`` never steers an
install, a removal or a lockfile write into the user's own folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lemon_core.errors import PlantedLinkError
from lemon_core.install import pipeline, remove, targets
from lemon_core.install.activate import Activation
from lemon_core.install.pipeline import InstallRequest
from lemon_core.state.lockfile import write_records
from tests.install.support import skill_folder, snapshot


@pytest.fixture
def claude_skills(home: Path) -> Path:
    """The user's own skills, with one they care about."""
    folder = home / ".claude" / "skills"
    skill_folder(folder, "precious", "Mine.\n")
    return folder


def _plant_skill_link(project: Path, claude_skills: Path) -> Path:
    (project / ".lemon").mkdir()
    link = project / ".lemon" / "skill"
    link.symlink_to(claude_skills, target_is_directory=True)
    return link


def test_install_local_through_a_planted_skill_link_is_refused(
    ctx, plugins, project, src, claude_skills
) -> None:
    link = _plant_skill_link(project, claude_skills)
    before = snapshot(claude_skills.parent)
    with pytest.raises(PlantedLinkError, match="is a symbolic link") as info:
        pipeline.install(InstallRequest(str(skill_folder(src, "x")), approve=True, local=True), ctx, plugins)
    assert info.value.path == str(link)
    assert snapshot(claude_skills.parent) == before
    assert sorted(p.name for p in claude_skills.iterdir()) == ["precious"]


def test_remove_local_through_a_planted_skill_link_is_refused(
    ctx, plugins, project, claude_skills
) -> None:
    _plant_skill_link(project, claude_skills)
    before = snapshot(claude_skills.parent)
    with pytest.raises(PlantedLinkError):
        remove.remove("precious", ctx, plugins=plugins, approve=True, local=True)
    with pytest.raises(PlantedLinkError):  # without --local the project copy is looked at first
        remove.remove("precious", ctx, plugins=plugins, approve=True)
    assert snapshot(claude_skills.parent) == before


def test_a_whole_lemon_link_is_refused_for_install_and_remove(
    ctx, plugins, project, src, tmp_path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    skill_folder(elsewhere / "skill", "keep")
    (project / ".lemon").symlink_to(elsewhere, target_is_directory=True)
    before = snapshot(elsewhere)
    with pytest.raises(PlantedLinkError, match=r"\.lemon is a symbolic link"):
        pipeline.install(InstallRequest(str(skill_folder(src, "x")), approve=True, local=True), ctx, plugins)
    with pytest.raises(PlantedLinkError, match=r"\.lemon is a symbolic link"):
        remove.remove("keep", ctx, plugins=plugins, approve=True, local=True)
    assert snapshot(elsewhere) == before


def test_a_planted_lockfile_link_is_refused(ctx, plugins, project, src, tmp_path) -> None:
    theirs = tmp_path / "theirs" / "skills.lock.json"
    theirs.parent.mkdir()
    theirs.write_text('{"version": 1, "skills": {}}')
    (project / ".lemon").mkdir()
    (project / ".lemon" / "skills.lock.json").symlink_to(theirs)
    with pytest.raises(PlantedLinkError, match="skills.lock.json is a symbolic link"):
        pipeline.install(InstallRequest(str(skill_folder(src, "x")), approve=True, local=True), ctx, plugins)
    with pytest.raises(PlantedLinkError):
        write_records(project / ".lemon" / "skills.lock.json", {"x": None, "y": {"a": 1}},
                      root=project)
    assert theirs.read_text() == '{"version": 1, "skills": {}}'
    assert not (project / ".lemon" / "skill" / "x").exists()


def test_the_project_scope_carries_its_root_and_the_global_scope_none(ctx) -> None:
    assert targets.scope_for(ctx, local=True).root == ctx.cwd
    assert targets.scope_for(ctx, local=False).root is None
    targets.scope_for(ctx, local=False).guard()  # the user's own: never checked


def test_a_skills_folder_swapped_after_the_guard_is_refused_at_activation(
    project, claude_skills, tmp_path
) -> None:
    """The renames are made from the project root's descriptor, one component at a time, so a
    ``.lemon/skill`` swapped for a link after the up-front check is still refused."""
    skills = project / ".lemon" / "skill"
    staged = skill_folder(skills, ".x.staging")
    activation = Activation(project)
    os.rename(skills, tmp_path / "aside")
    skills.symlink_to(claude_skills, target_is_directory=True)
    with pytest.raises(PlantedLinkError):
        activation.activate(tmp_path / "aside" / staged.name, skills / "x")
    assert sorted(p.name for p in claude_skills.iterdir()) == ["precious"]


def test_local_install_and_remove_still_work_in_a_real_project(ctx, plugins, project,
                                                               src) -> None:  # fmt: skip
    result = pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, local=True), ctx, plugins)
    assert result.scope == "project" and (project / ".lemon" / "skill" / "demo").is_dir()
    pipeline.install(InstallRequest(str(skill_folder(src, "demo", "Again.\n")), approve=True, local=True, force=True), ctx, plugins)
    assert "Again." in (project / ".lemon" / "skill" / "demo" / "SKILL.md").read_text()
    remove.remove("demo", ctx, plugins=plugins, approve=True, local=True)
    assert sorted(p.name for p in (project / ".lemon" / "skill").iterdir()) == []
