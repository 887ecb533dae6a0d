"""Bounded JSON parsing: depth, integer digits, constants, duplicate keys; never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lemon_core.fsio import FileProblem
from lemon_core.jsondata import (
    MAX_DEPTH,
    PYTHON_DEPTH,
    PYTHON_INT_DIGITS,
    JsonProblem,
    load_file,
    loads,
    nesting_exceeds,
)


def _code(data: str | bytes, **options: object) -> str:
    with pytest.raises(FileProblem) as caught:
        loads(data, **options)
    assert caught.value.kind == "parse"
    return caught.value.code


def test_parses_ordinary_json() -> None:
    assert loads(b'{"disabled": ["a"], "n": -12, "f": 1.5, "s": "[{"}') == {
        "disabled": ["a"], "n": -12, "f": 1.5, "s": "[{"}


def test_nesting_100000_deep_is_refused_fast() -> None:
    started = time.monotonic()
    assert _code("[" * 100_000 + "]" * 100_000) == "too_deep"
    assert _code('{"a":' * 100_000 + "1" + "}" * 100_000) == "too_deep"
    assert _code("[" * 200_000) == "too_deep"
    assert time.monotonic() - started < 5


def test_the_depth_limit_is_exact() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    assert _code("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)) == "too_deep"
    assert loads("[[[1]]]", max_depth=3) == [[[1]]]
    assert _code("[[[1]]]", max_depth=2) == "too_deep"


def test_brackets_in_strings_do_not_count() -> None:
    text = json.dumps({"a": "[" * 500 + '\\"' + "{" * 500})
    assert loads(text) == json.loads(text)


def test_long_integers_are_refused_whatever_the_interpreter_allows() -> None:
    assert _code('{"version": ' + "9" * 5000 + "}") == "int_too_long"
    assert _code("[" + "9" * 101 + "]") == "int_too_long"
    assert loads("[-" + "9" * 100 + "]") == [-int("9" * 100)]
    assert loads("[1.5e999]") == [float("inf")]  # floats are linear to parse


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(constant: str) -> None:
    assert _code(f"[{constant}]") == "not_json"


def test_duplicate_keys() -> None:
    assert _code('{"disabled": [], "disabled": ["x"]}') == "duplicate_key"
    assert loads('{"a": 1, "a": 2}', duplicates="last") == {"a": 2}


def test_text_problems() -> None:
    assert _code(b'{"a": "\xff"}') == "invalid_utf8"
    assert loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    assert _code("{nope") == "invalid_json"
    with pytest.raises(FileProblem) as caught:
        loads('{"SECRET": ')
    assert "SECRET" not in caught.value.message


def test_load_file(tmp_path: Path) -> None:
    assert load_file(tmp_path / "none.json") is None
    (tmp_path / "empty.json").write_text("  \n")
    assert load_file(tmp_path / "empty.json", empty=dict) == {}
    with pytest.raises(FileProblem):
        load_file(tmp_path / "empty.json")
    (tmp_path / "big.json").write_text("[" + " " * 100 + "]")
    with pytest.raises(FileProblem) as caught:
        load_file(tmp_path / "big.json", 50)
    assert caught.value.code == "too_large"


def _depth(text: str) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
            if depth < 0:
                break
    return deepest


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab'),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner),
    max_leaves=30,
)


@pytest.mark.slow
@given(_json_values, st.integers(min_value=0, max_value=8))
def test_nesting_check_matches_the_real_depth(value: object, limit: int) -> None:
    text = json.dumps(value)
    assert nesting_exceeds(text, limit) == (_depth(text) > limit)


@given(st.text(alphabet='[]{}"\\,:1a '), st.integers(min_value=1, max_value=6))
def test_a_parser_stopped_by_the_check_never_nests_deeper(text: str, limit: int) -> None:
    if not nesting_exceeds(text, limit):
        assert _depth(text) <= limit or _unbalanced_before_depth(text, limit)


def _unbalanced_before_depth(text: str, limit: int) -> bool:
    """True when the text is invalid JSON before it gets deeper than ``limit`` (a stray
    closer or an unterminated string), so the parser stops first."""
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return True
    return False


@given(st.binary(max_size=200) | st.text(alphabet='[]{}"\\,:0123456789.eE-+ aNI', max_size=200))
def test_any_input_is_a_value_or_a_problem(data: bytes | str) -> None:
    try:
        loads(data)
    except FileProblem:
        pass


def test_a_problem_carries_what_a_caller_words_its_own_way() -> None:
    with pytest.raises(JsonProblem) as syntax:
        loads(b'{"a": 1,\n "b" 2}')
    assert (syntax.value.code, syntax.value.line, syntax.value.column) == ("invalid_json", 2, 6)
    assert syntax.value.reason == "Expecting ':' delimiter"
    with pytest.raises(JsonProblem) as twice:
        loads(b'{"disabled": [], "disabled": ["x"]}')
    assert (twice.value.code, twice.value.key, twice.value.line) == ("duplicate_key", "disabled", None)


def test_pythons_own_bounds_skip_the_depth_pass_and_still_refuse_recursion() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert loads("[" * 100 + "]" * 100, max_depth=PYTHON_DEPTH) == loads("[" * 100 + "]" * 100,
                                                                        max_depth=200)
    with pytest.raises(JsonProblem) as refused:
        loads(deep, max_depth=PYTHON_DEPTH)
    assert refused.value.code == "too_deep"
    assert loads("1" * PYTHON_INT_DIGITS, max_int_digits=PYTHON_INT_DIGITS) == int("1" * 4300)
