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
    # too long once folded (a size is a safety rule)
    ("name: x\ndescription: |\n  " + "word " * 150 + "\n  " + "more " * 150 + "\n", "too_long"),
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
    assert STRICTER_THAN_AGENTS == frozenset({"multiline_value"})
    assert fold_description(["not", "a", "mapping"]) == ["not", "a", "mapping"]
