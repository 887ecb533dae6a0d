"""The words relevance sees: folded, split, stemmed, stopwords dropped."""

from __future__ import annotations

from hypothesis import given
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

    general = [w for w in (tokens._ANALYSED[r] for r in re.findall(r"[^\W_]+", tokens.fold(text)))
               if w]
    assert words(text) == general
