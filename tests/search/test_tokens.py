"""The words relevance sees: folded, split, stemmed, stopwords dropped."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from lemon_core.search.tokens import compact, query_words, stem, words


def test_hyphen_underscore_and_case_insensitive() -> None:
    assert words("bun-file-io") == words("Bun File IO") == words("BUN_FILE_IO") == [
        "bun", "file", "io"]
    assert compact("Bun-File IO") == "bunfileio"


def test_stopwords_and_short_words_dropped_digits_kept() -> None:
    assert words("I need to read the files") == ["read", "file"]
    assert words("k8s s3 2fa a 1") == ["k8s", "s3", "2fa", "1"]


def test_light_stemming_meets_common_forms() -> None:
    assert {stem(w) for w in ("tests", "testing", "tested")} == {"test"}
    assert stem("policies") == "policy" and stem("migrating") == "migrate"
    assert stem("writing") == "write" and stem("running") == "run"
    assert stem("boxes") == "box" and stem("images") == "image"
    assert stem("status") == "status" and stem("process") == "process"


def test_unicode_text_is_folded() -> None:
    assert words("Ｆｕｌｌｗｉｄｔｈ Café") == ["fullwidth", "café"]


def test_query_words_are_distinct_in_order() -> None:
    assert query_words("yaml lint yaml YAML") == ["yaml", "lint"]


@given(st.text(max_size=200))
def test_ascii_fast_path_equals_the_general_path(text: str) -> None:
    # the general path (any text) must split ASCII exactly as the fast path does
    import re

    from lemon_core.search import tokens

    assume(not tokens._CJK.search(tokens.fold(text)))  # cut into pairs: see the test below
    general = [w for w in (tokens._ANALYSED[r] for r in re.findall(r"[^\W_]+", tokens.fold(text)))
               if w]
    assert words(text) == general


def test_cjk_runs_are_cut_into_overlapping_pairs() -> None:
    # Chinese and Japanese are written without spaces: a whole run was one word, so a request
    # never shared a word with a description saying the same thing in other company.
    assert words("帮我辅导高考物理题") == ["帮我", "我辅", "辅导", "导高", "高考", "考物", "物理",
                                      "理题"]
    assert words("日本語の勉強 quiz") == ["日本", "本語", "語の", "の勉", "勉強", "quiz"]
    assert words("猫") == ["猫"]  # a lone character stays whole
    assert words("api接口文档") == ["api", "接口", "口文", "文档"]
    assert words("Café") == ["café"]  # other scripts are untouched
