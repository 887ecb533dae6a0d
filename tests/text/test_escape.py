"""text.escape: the one way untrusted text reaches a terminal."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from lemon_core.text import escape

_INVISIBLE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def _raw_invisible(text: str) -> list[str]:
    found = []
    for index, char in enumerate(text):
        if unicodedata.category(char) not in _INVISIBLE:
            continue
        if char == "\u200d" and 0 < index < len(text) - 1:  # a joiner inside an emoji sequence
            continue
        found.append(char)
    return found


def test_plain_text_is_kept() -> None:
    for text in ("release-notes", "Déploiement", "配置", "naïve café", "👍🏽 ok", ""):
        assert escape(text) == text


def test_terminal_controls_are_shown_not_sent() -> None:
    assert escape("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert escape("title\x1b]0;pwned\x07") == "title\\x1b]0;pwned\\x07"
    assert escape("one\nlemon: error: forged") == "one\\x0alemon: error: forged"
    assert escape("back\rover") == "back\\x0dover"
    assert escape("\x9b31m") == "\\x9b31m"  # C1 CSI


def test_bidi_and_zero_width_characters_are_shown() -> None:
    assert escape("evil\u202etxt.exe") == "evil\\u202etxt.exe"
    assert escape("de\u200bploy") == "de\\u200bploy"
    assert escape("de\u2060ploy\ufeff") == "de\\u2060ploy\\ufeff"
    assert escape("soft\u00adhyphen") == "soft\\xadhyphen"
    assert escape("tag\U000e0041") == "tag\\U000e0041"
    assert escape("lone \ud800") == "lone \\ud800"


def test_a_backslash_cannot_pass_for_an_escape() -> None:
    # A name that spells "\x1b" itself must look different from one holding ESC.
    assert escape("a\\x1b") == "a\\\\x1b"
    assert escape("a\\x1b") != escape("a\x1b")


def test_emoji_sequences_keep_their_joiners() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert escape(family) == family
    assert escape("x\u200dy") == "x\\u200dy"  # a joiner between letters is shown


def test_non_strings_are_shown_as_text() -> None:
    assert escape(42) == "42"


@given(st.text())
def test_no_invisible_character_survives(text: str) -> None:
    shown = escape(text)
    assert _raw_invisible(shown) == []
    assert "\n" not in shown and "\x1b" not in shown


@given(st.text(), st.text())
def test_different_texts_stay_different(first: str, second: str) -> None:
    if first != second:
        assert escape(first) != escape(second)


def test_defang_keeps_layout_and_backslashes_but_shows_what_hides() -> None:
    from lemon_core.text import defang

    assert defang("plain text") == "plain text"
    assert defang("line one\n\tline two C:\\tmp") == "line one\n\tline two C:\\tmp"
    assert defang("a\u202eb\u200bc\x1b[2J") == "a\\u202eb\\u200bc\\x1b[2J"
    assert defang("dev \U0001f469\u200d\U0001f4bb") == "dev \U0001f469\u200d\U0001f4bb"


@given(st.text())
def test_defang_leaves_no_hiding_character_but_line_breaks_and_tabs(text: str) -> None:
    from lemon_core.text import defang

    shown = defang(text).replace("\r\n", "\n")  # a carriage return before a line feed stays
    hiding = [c for c in shown if c not in "\n\t" and c != "\u200d"
              and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs")]
    assert hiding == []
