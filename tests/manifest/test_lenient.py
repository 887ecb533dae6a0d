"""Install-time leniency: only the rules stricter than the agents (a description spanning
lines) are forgiven; every safety rule still applies to the folded text."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core.manifest.lenient import (
    STRICTER_THAN_AGENTS,
    fold_description,
    load_for_install,
    parse_for_install,
    relaxed_warning,
)
from lemon_core.manifest.load import load_manifest


def _write(tmp_path: Path, frontmatter: str) -> Path:
    path = tmp_path / "SKILL.md"
    path.write_text(f"---\n{frontmatter}---\nBody.\n", encoding="utf-8")
    return path


def test_a_multiline_description_is_accepted_folded_with_its_error(tmp_path) -> None:
    path = _write(tmp_path, "name: wrapped\ndescription: |\n  Use when one\n    thing\n\n"
                            "  spans lines.\n")
    assert not load_manifest(path, key="wrapped").ok  # the catalog's reading is unchanged
    result, relaxed = load_for_install(path, key="wrapped")
    assert result.ok and result.manifest.description == "Use when one thing spans lines."
    assert [d.code for d in relaxed] == ["multiline_value"]
    again, relaxed_again = parse_for_install(path.read_bytes(), key="wrapped", label="x")
    assert again.ok and len(relaxed_again) == 1


@pytest.mark.parametrize(("frontmatter", "code"), [
    # a bidi control hidden in a multi-line description
    ("name: x\ndescription: |\n  Use when\n  a \u202e reversed\n", "unsafe_characters"),
    # over the 4,096-byte cap once folded (a size is a safety rule)
    ("name: x\ndescription: |\n  " + "word " * 450 + "\n  " + "more " * 450 + "\n", "too_long"),
    # long, and a bidi control past the 1,024th character (the whole text is checked)
    ("name: x\ndescription: " + "word " * 300 + "\u202e\n", "unsafe_characters"),
    # long, and a name that is not one line (only the description is relaxed)
    ('name: "x\\ny"\ndescription: ' + "word " * 300 + "\n", "multiline_value"),
    # a name spanning lines (names are never relaxed)
    ('name: "x\\ny"\ndescription: |\n  Use when\n  two lines.\n', "multiline_value"),
])
def test_safety_rules_still_refuse(tmp_path, frontmatter, code) -> None:
    path = _write(tmp_path, frontmatter)
    result, relaxed = load_for_install(path, key="x")
    assert not result.ok and relaxed == ()
    assert code in {d.code for d in result.errors}


def test_a_well_formed_manifest_is_untouched(tmp_path) -> None:
    path = _write(tmp_path, "name: fine\ndescription: Use when fine.\n")
    result, relaxed = load_for_install(path, key="fine")
    assert result.ok and relaxed == ()
    assert STRICTER_THAN_AGENTS == frozenset({"multiline_value", "long_description"})
    assert fold_description(["not", "a", "mapping"]) == ["not", "a", "mapping"]


def test_a_long_description_is_accepted_whole_with_its_error(tmp_path) -> None:
    """Over 1,024 characters (Codex and the standard refuse it, Claude Code loads it) and
    within the 4,096-byte cap: installed on request, the manifest keeping the whole text."""
    text = "Use when " + "a long sentence " * 100  # 1,609 characters
    path = _write(tmp_path, f"name: long\ndescription: {text}\n")
    catalog = load_manifest(path, key="long")
    assert not catalog.ok and [d.code for d in catalog.errors] == ["long_description"]
    assert "Codex" in catalog.errors[0].message and "lint --fix cannot" in catalog.errors[0].message
    result, relaxed = load_for_install(path, key="long")
    assert result.ok and result.manifest.description == text.strip()
    assert [d.code for d in relaxed] == ["long_description"]


def test_a_long_multiline_description_carries_both_rules(tmp_path) -> None:
    lines = "\n".join("  a long line of words " * 3 for _ in range(20))
    path = _write(tmp_path, f"name: both\ndescription: |\n{lines}\n")
    result, relaxed = parse_for_install(path.read_bytes(), key="both", label="x")
    assert result.ok and len(result.manifest.description) > 1024
    assert "\n" not in result.manifest.description
    assert [d.code for d in relaxed] == ["multiline_value", "long_description"]
    warning = relaxed_warning("both", relaxed, "/skills/both")
    assert "[long_description]" in warning and "lint --fix /skills/both` folds" in warning
