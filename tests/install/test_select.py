"""The checkout walk: hidden group folders are searched, VCS folders and node_modules are
not, a skill's own (hidden) subfolders belong to it; the picker names each skill's folder."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.install.select import SKIPPED, choose, find_skills, label
from tests.install.support import skill_folder


def test_hidden_group_folders_are_searched_and_vcs_folders_skipped(tmp_path) -> None:
    for group in (".curated", ".system", ".experimental"):
        skill_folder(tmp_path / "skills" / group, f"one{group}".replace(".", "-"))
    for skipped in SKIPPED:
        skill_folder(tmp_path / skipped / "deep", "hidden-away")
    skill_folder(tmp_path / ".github" / "skills", "copilot-skill")
    outer = skill_folder(tmp_path / "skills", "outer")
    skill_folder(outer / ".inner", "nested")  # part of outer, not a skill of its own
    assert find_skills(tmp_path) == [
        ".github/skills/copilot-skill", "skills/.curated/one-curated",
        "skills/.experimental/one-experimental", "skills/.system/one-system", "skills/outer"]
    assert {".git", ".hg", ".svn", ".bzr", "node_modules"} <= SKIPPED


def test_the_picker_names_the_folder_of_each_skill() -> None:
    assert label("skills/.curated/pdf") == "pdf (from skills/.curated/)"
    assert label("pdf") == "pdf" and label("") == "(the root)"
    with pytest.raises(UsageError, match=r"pdf \(from skills/\.curated/\)"):
        choose(["skills/.curated/pdf"], skills=["nope"])
