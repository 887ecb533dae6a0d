"""The checkout walk: hidden group folders are searched, VCS folders and node_modules are
not, a skill's own (hidden) subfolders belong to it; the picker names each skill's folder."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.install.select import SKIPPED, choose, find_nested, find_skills, label
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


def test_nested_skills_are_found_inside_their_outermost_parent(tmp_path) -> None:
    outer = skill_folder(tmp_path / "skills", "scaling")
    skill_folder(outer, "volume")
    skill_folder(outer / "volume", "horizontal")  # two levels down: still the outer's
    skill_folder(outer / "node_modules", "skipped")
    skill_folder(tmp_path / "skills", "plain")
    tops = find_skills(tmp_path)
    assert tops == ["skills/plain", "skills/scaling"]
    assert find_nested(tmp_path, tops) == {"skills/scaling/volume": "skills/scaling",
                                           "skills/scaling/volume/horizontal": "skills/scaling"}


def test_a_skill_is_chosen_by_path_folder_or_name() -> None:
    tops = ["skills/react-best-practices", "skills/plain"]
    names = {"skills/react-best-practices": "vercel-react-best-practices",
             "skills/plain": "plain"}
    for wanted in ("skills/react-best-practices", "react-best-practices",
                   "vercel-react-best-practices"):
        assert choose(tops, skills=[wanted], names=names) == ["skills/react-best-practices"]
    # --all never takes a nested skill; naming one does
    nested = {"skills/plain/inner": "skills/plain"}
    names["skills/plain/inner"] = "inner-skill"
    assert choose(tops, all_skills=True, names=names, nested=nested) == tops
    assert choose(tops, skills=["inner-skill"], names=names, nested=nested) == [
        "skills/plain/inner"]
    assert choose(tops, skills=["inner"], names=names, nested=nested) == ["skills/plain/inner"]
    # a skill of the tree comes before a nested one of the same name
    assert choose(tops, skills=["plain"], names={**names, "skills/plain/inner": "plain"},
                  nested=nested) == ["skills/plain"]


def test_a_word_naming_two_skills_is_refused_naming_both() -> None:
    tops = ["a/tool", "b/other"]
    names = {"a/tool": "alpha", "b/other": "tool"}  # folder 'tool', and a skill named 'tool'
    with pytest.raises(UsageError, match=r"'tool' names 2 skills .*--skill a/tool"):
        choose(tops, skills=["tool"], names=names)
    assert label("b/other", "tool") == "tool (folder b/other/)"
