"""The one portable-name rule (issue 17 §7): every attack is refused, real names pass."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lemon_core.fsio.names import (
    MAX_KEY_CHARS,
    RESERVED_DEVICES,
    WINDOWS_RESERVED,
    file_name_problem,
    skill_key_problem,
)
from lemon_core.text import lookalike_form

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2060", "\u2061", "\u2064",
             "\ufeff", "\xad", "\u202a", "\u202e", "\u2066", "\u2069", "\U000e0001",
             "\U000e0041", "\U000e007f"]


@pytest.mark.parametrize("char", sorted(WINDOWS_RESERVED))
def test_windows_reserved_characters_are_refused(char: str) -> None:
    assert "Windows reserves" in (file_name_problem(f"a{char}b.md") or "")


@pytest.mark.parametrize("char", INVISIBLE)
def test_invisible_characters_are_refused_in_any_component(char: str) -> None:
    assert file_name_problem(f".g{char}it") is not None
    assert file_name_problem(f"{char}.git") is not None
    assert skill_key_problem(f"deploy{char}") is not None


@pytest.mark.parametrize("name", ["CON", "nul.txt", "com1", "LPT9.md", "Aux", "con .txt",
                                  "conin$", "COM\u00b9"])
def test_device_names_are_refused(name: str) -> None:
    assert "device name" in (file_name_problem(name) or "")


@pytest.mark.parametrize("name", ["trailing.", "trailing ", "bad\x1bname", "tab\tname",
                                  "cafe\u0301.md", "", ".", "..", "a\\b", "x" * 256])
def test_other_unportable_names_are_refused(name: str) -> None:
    assert file_name_problem(name) is not None


@pytest.mark.parametrize("name", ["SKILL.md", "scripts", "run.sh", ".gitignore", "README",
                                  "con-tools.md", "console.md", "café.md", "技能.md",
                                  "a b.md", "x" * 255, "résumé", "👩\u200d💻.md"])
def test_real_names_pass(name: str) -> None:
    assert file_name_problem(name) is None


@pytest.mark.parametrize(("key", "why"), [
    ("C:x", "Windows reserves"),
    ("\uff21\uff22\uff23", "compatibility forms"),
    ("a" * (MAX_KEY_CHARS + 1), "at most 64"),
    (".hidden", "dot"),
    ("de\u200bploy", "invisible"),
])
def test_the_key_attacks_are_refused(key: str, why: str) -> None:
    assert why in (skill_key_problem(key) or "")


def test_a_64_character_key_passes() -> None:
    assert skill_key_problem("a" * MAX_KEY_CHARS) is None
    assert skill_key_problem("pdf-tools") is None


@given(st.text(max_size=40))
def test_a_name_that_passes_is_portable(name: str) -> None:
    """Whatever passes names one file everywhere: no reserved or invisible character, no
    device name, no trailing dot or space, NFC; and nothing that passes reads as ``.git``
    unless it is ``.git``."""
    if file_name_problem(name) is not None:
        return
    assert name and name not in (".", "..")
    assert not set(name) & WINDOWS_RESERVED and "/" not in name and "\\" not in name
    assert all(unicodedata.category(c) not in ("Cc", "Cs") for c in name)
    assert all(unicodedata.category(c) != "Cf" or c == "\u200d" for c in name)
    assert not name.endswith((".", " "))
    assert name.split(".", 1)[0].rstrip(" ").lower() not in RESERVED_DEVICES
    assert unicodedata.normalize("NFC", name) == name
    if lookalike_form(name) == ".git":
        assert name.lower() == ".git" or not name.isascii()


@given(st.text(min_size=1, max_size=80))
def test_a_key_that_passes_is_a_portable_short_name(key: str) -> None:
    if skill_key_problem(key) is not None:
        return
    assert file_name_problem(key) is None
    assert len(key) <= MAX_KEY_CHARS and not key.startswith(".")
    assert unicodedata.normalize("NFKC", key) == key


@given(st.text(alphabet=st.sampled_from(INVISIBLE), min_size=1, max_size=3),
       st.integers(min_value=0, max_value=4))
def test_git_with_any_invisible_character_never_passes(noise: str, at: int) -> None:
    name = ".git"[:at] + noise + ".git"[at:]
    assert file_name_problem(name) is not None
