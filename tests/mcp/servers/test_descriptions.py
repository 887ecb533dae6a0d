import json

from lemon_core.mcp.servers.descriptions import NAMED_SKILLS, find_description


def test_names_up_to_300_then_counts_the_rest() -> None:
    names = [f"skill-{i:04}" for i in range(NAMED_SKILLS + 5)]
    text = find_description(names)
    assert "skill-0299" in text and "skill-0300" not in text
    assert text.endswith("and 5 more.")


def test_stays_small_whatever_the_names() -> None:
    names = [f"{'x' * 200}-{i}" for i in range(10_000)]
    text = find_description(names)
    assert len(json.dumps(text)) < 12_000
    assert "more." in text


def test_names_are_one_line_of_visible_text() -> None:
    text = find_description(["evil\x1b]0;title\x07name", "two\nlines"])
    assert "\x1b" not in text and "\n" not in text


def test_an_empty_catalog_says_so() -> None:
    assert "no skills" in find_description([])
