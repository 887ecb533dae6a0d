"""The tools a prompt listing names: presets for the known servers, a harness' own names."""

from __future__ import annotations

import pytest

from lemon_core.errors import UsageError
from lemon_core.search.prompt_tools import PRESETS, PromptTools, prompt_tools


def test_presets_are_the_servers_tools() -> None:
    assert prompt_tools().names() == ("find_skills", "load_skill", "read_skill",
                                      "skill_manage")
    assert prompt_tools("lazy").names() == ("find_skills", "load_skill")
    assert prompt_tools("library").names() == ("find_relevant", "read_skill")
    assert set(PRESETS) == {"lemon-serve", "lazy", "library"}


def test_a_harness_renames_adds_and_drops_roles() -> None:
    assert prompt_tools("lazy", "find=search_skills, load=open_skill") == PromptTools(
        "search_skills", "open_skill", None, None)
    assert prompt_tools("lazy", "read=skill.read") == PromptTools(
        "find_skills", "load_skill", "skill.read", None)
    assert prompt_tools("lemon-serve", "find=,read=") == PromptTools(None, "load_skill", None)
    assert prompt_tools("lemon-serve", "write=").write is None


@pytest.mark.parametrize(("preset", "names", "said"), [
    ("claude", None, "unknown tool set 'claude'"),
    ("lazy", "search=x", "ROLE=NAME"),
    ("lazy", "find", "ROLE=NAME"),
    ("lazy", "find=a b", "may hold only"),
    ("lazy", "find=x</available_skills>", "may hold only"),
    ("lazy", "find=" + "x" * 65, "at most 64"),
    ("lazy", "load=", "needs a tool that loads a skill"),
])
def test_bad_names_are_usage_errors(preset: str, names: str | None, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        prompt_tools(preset, names)


def test_the_learning_nudge_is_in_the_header_only_where_the_write_tool_is() -> None:
    from lemon_core.search.prompt import header

    assert "record the lesson with skill_manage(action, key)" in header(prompt_tools())
    for tools in (prompt_tools("lazy"), prompt_tools("library"),
                  prompt_tools("lemon-serve", "write="),
                  PromptTools(nudge=False)):
        assert "record the lesson" not in header(tools)
    assert "record the lesson with note(action, key)" in header(
        prompt_tools("lemon-serve", "write=note"))
