"""A selector that takes ``descriptions`` is shown each candidate's description; one that
does not is called as before; the fetch question names a folder only for named skills."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.install import pipeline
from lemon_core.install.describe import descriptions
from lemon_core.install.pipeline import InstallRequest
from tests.helpers import write_skill


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    write_skill(tree / "skills", "one", description="The first one.")
    write_skill(tree / "skills", "two", frontmatter="name: [unclosed\n")
    return tree


def test_descriptions_are_read_and_a_broken_manifest_has_none(tmp_path) -> None:
    assert descriptions(_tree(tmp_path), ["skills/one", "skills/two"]) == {
        "skills/one": "The first one.", "skills/two": None}


def test_a_selector_opts_in_to_descriptions(tmp_path) -> None:
    tree = _tree(tmp_path)
    seen = []

    def described(candidates, descriptions=None):
        seen.append(descriptions)
        return [candidates[0]]

    assert pipeline.pick_skills(tree, (), False, described) == ["skills/one"]
    assert seen == [{"skills/one": "The first one.", "skills/two": None}]
    assert pipeline.pick_skills(tree, (), False, lambda c: [c[1]]) == ["skills/two"]


def test_the_fetch_question_names_only_the_folders_of_named_skills(ctx, plugins, tmp_path,
                                                                   agent) -> None:
    tree = _tree(tmp_path)
    asked = []

    def no(request):
        asked.append(request)
        return False

    for skills in ((), ("one",)):
        with pytest.raises(ApprovalRefused):
            pipeline.install(InstallRequest(str(tree), approve=no, skills=skills), ctx, plugins)
    assert asked[0].stage == "fetch" and asked[0].targets == ()
    assert asked[0].skills_dir == str(agent / "skill")
    assert asked[1].targets == (str(agent / "skill" / "one"),)

