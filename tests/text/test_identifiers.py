"""What may name a skill: no invisible character in a key or a manifest ``name``; lookalikes."""

from __future__ import annotations

import sys
import unicodedata

import pytest

from lemon_core.manifest.load import parse_manifest
from lemon_core.text import identifier_reason, lookalike_form, unsafe_reason

INVISIBLE = ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u200d", "\u180e", "\U000e0041",
             "\u034f", "\u3164", "\ufe0f"]


def _format_characters() -> list[str]:
    return [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]


def test_every_format_character_is_rejected_in_an_identifier() -> None:
    for char in _format_characters():
        assert identifier_reason(f"de{char}ploy") is not None, f"U+{ord(char):04X}"


@pytest.mark.parametrize("char", INVISIBLE)
def test_invisible_characters_are_named_in_the_reason(char: str) -> None:
    code, reason = identifier_reason(f"deploy{char}")
    assert code == "unsafe_characters"
    assert f"U+{ord(char):04X}" in reason and "invisible" in reason


@pytest.mark.parametrize("name", ["deploy", "技能", "café", "déploiement", "naïve-ünïcode"])
def test_visible_names_pass(name: str) -> None:
    assert identifier_reason(name) is None


def test_unsafe_text_rules_still_apply_and_descriptions_keep_joiners() -> None:
    assert identifier_reason("a\nb")[0] == "multiline_value"
    assert identifier_reason("a\u202eb")[0] == "unsafe_characters"
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert unsafe_reason(f"Use for the {family} planner") is None


def test_lookalike_form() -> None:
    forms = {lookalike_form(k) for k in ("deploy", "Deploy", "DEPLOY", "de\u200bploy",
                                          "\uff44\uff45\uff50\uff4c\uff4f\uff59", "dep\u00adloy")}
    assert forms == {"deploy"}
    assert lookalike_form("\ufb01le") == lookalike_form("file")
    assert lookalike_form("deploy-a") != lookalike_form("deploy-b")


@pytest.mark.parametrize("char", INVISIBLE)
def test_a_manifest_name_with_an_invisible_character_is_rejected(char: str) -> None:
    data = f"---\nname: dep{char}loy\ndescription: Ship it.\n---\nBody\n".encode()
    result = parse_manifest(data, key="deploy", label="SKILL.md")
    assert result.manifest is None
    assert [d.code for d in result.diagnostics] == ["unsafe_characters"]
    assert "name contains the invisible character" in result.diagnostics[0].message


def test_a_description_keeps_emoji_sequences() -> None:
    text = "---\nname: family\ndescription: Plans for \U0001f468\u200d\U0001f469\u200d\U0001f467.\n---\n"
    result = parse_manifest(text.encode(), key="family", label="SKILL.md")
    assert result.manifest is not None and "\u200d" in result.manifest.description


def test_a_joiner_inside_an_emoji_sequence_may_name_a_skill() -> None:
    assert identifier_reason("emoji-\U0001f469\u200d\U0001f4bb-skill") is None
    assert identifier_reason("emoji-\U0001f469\u200d-skill") is not None
