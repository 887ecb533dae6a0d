"""``--force`` never destroys what lemon did not install (issue 17 §3): a hand-written skill,
a folder of other files, a plain file or a link at the target is refused with or without
``force``, and the message says what is there without pointing at ``--force``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lemon_core.errors import LemonError
from lemon_core.install import pipeline
from lemon_core.install.occupied import NotLemons
from lemon_core.install.pipeline import InstallRequest
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import skill_folder, snapshot


def _hand_written(target: Path) -> None:
    target.mkdir(parents=True)
    (target / "SKILL.md").write_text("---\nname: demo\ndescription: mine\n---\nMy own.\n")
    (target / "notes.md").write_text("precious\n")


def _other_files(target: Path) -> None:
    target.mkdir(parents=True)
    (target / "data.csv").write_text("a,b\n")


def _plain_file(target: Path) -> None:
    target.parent.mkdir(parents=True)
    target.write_text("plain\n")


PLANTS = {"hand-written skill": (_hand_written, "a skill folder lemon did not install"),
          "folder of other files": (_other_files, "a folder of other files"),
          "plain file": (_plain_file, "holds a file")}


@pytest.mark.parametrize("case", sorted(PLANTS))
@pytest.mark.parametrize("force", [False, True])
def test_what_lemon_did_not_install_is_never_replaced(ctx, plugins, agent, src, case,
                                                      force) -> None:
    plant, what = PLANTS[case]
    target = agent / "skill" / "demo"
    plant(target)
    before = snapshot(agent)
    with pytest.raises(NotLemons) as caught:
        pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, force=force), ctx, plugins)
    message = str(caught.value)
    assert what in message and "Move or rename it" in message
    assert "with or without --force" in message and "pass force=True" not in message
    assert snapshot(agent) == before


def test_a_link_at_the_target_is_refused_and_its_target_untouched(ctx, plugins, agent, src,
                                                                  tmp_path) -> None:
    mine = tmp_path / "mine"
    _hand_written(mine)
    (agent / "skill").mkdir(parents=True)
    (agent / "skill" / "demo").symlink_to(mine)
    before = snapshot(agent, mine)
    with pytest.raises(NotLemons, match="a symbolic link"):
        pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, force=True), ctx, plugins)
    assert snapshot(agent, mine) == before


def test_a_recorded_skill_swapped_for_a_file_is_refused(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo")
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    target = agent / "skill" / "demo"
    for child in target.iterdir():
        child.unlink()
    target.rmdir()
    target.write_text("mine now\n")
    with pytest.raises(NotLemons, match="a file where lemon installed the folder of 'demo'"):
        pipeline.install(InstallRequest(str(folder), approve=True, force=True), ctx, plugins)
    assert target.read_text() == "mine now\n"


def test_a_recorded_skill_is_replaced_only_with_force(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo")
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    with pytest.raises(LemonError, match="already installed by lemon.*pass force=True") as caught:
        pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    assert not isinstance(caught.value, NotLemons)
    result = pipeline.install(InstallRequest(str(folder), approve=True, force=True), ctx, plugins)
    assert result.replaced
    record = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    assert record.file_hashes is not None and set(record.file_hashes) == {"SKILL.md"}
    assert record.file_hashes["SKILL.md"].startswith("F:")


def test_a_project_install_refuses_a_hand_written_project_skill(ctx, plugins, project,
                                                               src) -> None:
    target = project / ".lemon" / "skill" / "demo"
    _hand_written(target)
    with pytest.raises(NotLemons):
        pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, local=True, force=True), ctx, plugins)
    assert (target / "notes.md").read_text() == "precious\n"
    assert not os.path.exists(project / ".lemon" / "skills.lock.json")
