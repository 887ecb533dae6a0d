"""JSONC: comments and trailing commas outside strings; strict JSON otherwise."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.mcp.importer_kit import jsonc


def test_line_and_block_comments_are_ignored() -> None:
    text = """
    // leading comment
    {
      /* block
         over lines */ "a": 1, // trailing
      "b": /* inline */ [1, 2]
    }
    """
    assert jsonc.loads(text) == {"a": 1, "b": [1, 2]}


def test_comment_markers_inside_strings_are_untouched() -> None:
    text = '{"url": "https://example.test/mcp", "c": "/* not a comment */", "d": "a // b"}'
    assert jsonc.loads(text) == {
        "url": "https://example.test/mcp",
        "c": "/* not a comment */",
        "d": "a // b",
    }


def test_escaped_quotes_do_not_end_a_string() -> None:
    text = r'{"a": "say \"hi\" // still string", "b": "back\\"} // comment'
    assert jsonc.loads(text) == {"a": 'say "hi" // still string', "b": "back\\"}


def test_trailing_commas_are_removed_even_across_comments() -> None:
    text = '{"a": [1, 2, ], "b": {"c": 1, // c\n }, }'
    assert jsonc.loads(text) == {"a": [1, 2], "b": {"c": 1}}


def test_commas_inside_strings_are_untouched() -> None:
    assert jsonc.loads('{"a": ",]", "b": ",}",}') == {"a": ",]", "b": ",}"}


def test_strip_keeps_lines_and_columns() -> None:
    text = '{"a": 1, /* x */\n // y\n "b": 2,\n}'
    stripped = jsonc.strip(text)
    assert len(stripped) == len(text)
    assert stripped.count("\n") == text.count("\n")


def test_error_positions_point_into_the_original_text() -> None:
    with pytest.raises(jsonc.JsoncError) as info:
        jsonc.loads('{\n  // comment\n  "a": nope\n}')
    assert (info.value.lineno, info.value.colno) == (3, 8)


def test_unterminated_block_comment_is_an_error() -> None:
    with pytest.raises(jsonc.JsoncError, match="unterminated block comment"):
        jsonc.loads('{"a": 1} /* never closed')
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads("{} /*/")


@pytest.mark.parametrize("text", ["", "{", '{"a": NaN}', '{"a": Infinity}', "[1,,]", '{"a" 1}'])
def test_invalid_texts_raise_jsonc_error(text: str) -> None:
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads(text)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads("[" * 200_000 + "]" * 200_000)


def test_huge_integers_are_an_error_not_a_crash() -> None:
    with pytest.raises(jsonc.JsoncError):
        jsonc.loads_json('{"a": ' + "9" * 10_000 + "}")


def test_errors_hold_no_file_content() -> None:
    with pytest.raises(jsonc.JsoncError) as info:
        jsonc.loads('{"token": "s3cr3t-value" oops}')
    assert "s3cr3t" not in str(info.value)


def test_a_large_comment_is_handled_quickly() -> None:
    text = "{" + "/*" + "x" * 2_000_000 + "*/" + '"a": 1}'
    assert jsonc.loads(text) == {"a": 1}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_strict_json_parses_as_json(value: object) -> None:
    text = json.dumps(value)
    assert jsonc.loads(text) == json.loads(text)


@given(st.text())
def test_segments_concatenate_back_to_the_text(text: str) -> None:
    assert "".join(piece for _, piece in jsonc.segments(text)) == text


@settings(max_examples=300)
@given(st.text(alphabet='{}[],:"/*\\\n abc01-tfnule'))
def test_arbitrary_text_parses_or_raises_jsonc_error(text: str) -> None:
    try:
        jsonc.loads(text)
    except jsonc.JsoncError:
        pass
