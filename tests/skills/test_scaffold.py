"""The new-skill template: every valid name gives a SKILL.md both lints accept."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.lint.runner import lint_paths
from lemon_core.skills.scaffold import name_problem, new_skill


@pytest.mark.parametrize("name", ["a", "x" * 64, "pdf-forms", "v2-api-3"])
def test_each_valid_name_lints_clean(tmp_path, make_ctx, name) -> None:
    folder = new_skill(name, make_ctx(), path=tmp_path)
    assert folder == tmp_path / name and name_problem(name) is None
    for standard in (False, True):
        (result,) = lint_paths([folder], standard=standard)
        assert result.ok and not result.warnings, (standard, result)


def test_a_bad_name_names_the_rule(make_ctx, tmp_path) -> None:
    with pytest.raises(UsageError, match="single hyphens between them"):
        new_skill("x" * 65, make_ctx(), path=tmp_path / "out")
    assert not (tmp_path / "out").exists()
