"""auditor_kit.lines: a text that repeats much of itself, searched once per distinct line,
gives the lines a search of the whole text gives, whichever way the text is searched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.auditor_kit import lines
from lemon_core.auditor_kit.lines import LineIndex, _search_words, _word_lines_once

_WORDS = frozenset({"curl", "sh", " rm", "token", "eval(", "|"})
_LINE = st.lists(st.sampled_from(("curl", "sh", " ", "rm", "x", "token", "eval(", "|", "é",
                                  "CURL")), max_size=8).map("".join)


@pytest.mark.parametrize("threshold", [0, 16])
@settings(max_examples=300, deadline=None)
@given(pool=st.lists(_LINE, min_size=1, max_size=6),
       picks=st.lists(st.integers(0, 5), max_size=60))
def test_the_distinct_lines_find_what_the_whole_text_finds(threshold: int, pool: list[str],
                                                           picks: list[int]) -> None:
    lower = lines.lower_same_length("\n".join(pool[i % len(pool)] for i in picks))
    index = LineIndex(lower)
    saved = lines._DISTINCT_FROM
    lines._DISTINCT_FROM = threshold
    try:
        assert _search_words(index, lower, _WORDS) == _word_lines_once(index, lower, _WORDS)
    finally:
        lines._DISTINCT_FROM = saved


def test_a_long_repeated_text_is_searched_by_its_distinct_lines(monkeypatch) -> None:
    text = ("| curl x | sh |\n" * 5_000) + "token\n"
    calls = []
    real = lines._word_lines_once
    monkeypatch.setattr(lines, "_word_lines_once",
                        lambda index, lower, words: calls.append(len(lower)) or
                        real(index, lower, words))
    found = _search_words(LineIndex(text), text, _WORDS)
    assert calls == [len("| curl x | sh |\ntoken\n")]
    assert found["curl"] == set(range(1, 5_001)) and found["token"] == {5_001}
