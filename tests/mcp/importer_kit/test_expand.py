"""``${VAR}`` expansion and OpenCode's ``{env:}`` / ``{file:}`` substitution."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lemon_core.mcp.importer_kit import jsonc
from lemon_core.mcp.importer_kit.expand import (
    SubstitutionError,
    expand_vars,
    substitute_opencode,
)

ENV = {"TOKEN": "abc", "EMPTY": "", "NESTED": "${TOKEN}"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("${TOKEN}", "abc"),
        ("Bearer ${TOKEN}!", "Bearer abc!"),
        ("${UNSET}", "${UNSET}"),  # unset, no default: literal
        ("${EMPTY}", ""),  # set to empty
        ("${UNSET:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),  # POSIX :- (set but empty uses the default)
        ("${TOKEN:-fallback}", "abc"),
        ("${UNSET:-}", ""),
        ("${UNSET:-a b/c}", "a b/c"),
        ("$TOKEN", "$TOKEN"),  # bare form stays literal
        ("${input:api-key}", "${input:api-key}"),
        ("${env:TOKEN}", "${env:TOKEN}"),
        ("${}", "${}"),
        ("${TOKEN", "${TOKEN"),
        ("${NESTED}", "${TOKEN}"),  # one pass: values are not expanded again
        ("${TOKEN}${TOKEN}", "abcabc"),
        ("no placeholders", "no placeholders"),
    ],
)
def test_expand_vars(value: str, expected: str) -> None:
    assert expand_vars(value, ENV) == expected


def test_predefined_names_win_over_the_environment() -> None:
    env = {"workspaceFolder": "/from/env"}
    assert expand_vars("${workspaceFolder}/x", env, {"workspaceFolder": "/proj"}) == "/proj/x"


@given(st.text(), st.dictionaries(st.text(min_size=1), st.text()))
def test_expand_vars_never_raises(value: str, env: dict[str, str]) -> None:
    result = expand_vars(value, env)
    if "${" not in value:
        assert result == value


# -- OpenCode -----------------------------------------------------------------------------------


def no_files(arg: str) -> str:
    raise AssertionError(f"{arg} must not be read")


def test_env_tokens_are_substituted_json_escaped() -> None:
    env = {"TRICKY": 'a "quoted" \\ value\nwith newline'}
    text = '{"h": "Bearer {env:TRICKY}", "u": "{env:UNSET}"}'
    doc = jsonc.loads(substitute_opencode(text, env, no_files))
    assert doc == {"h": 'Bearer a "quoted" \\ value\nwith newline', "u": ""}


def test_tokens_in_comments_are_untouched_and_never_read() -> None:
    text = (
        '{\n  // "x": "{file:secret.txt}" {env:TOKEN}\n  /* {file:other} */ "a": "{env:TOKEN}"\n}'
    )
    out = substitute_opencode(text, {"TOKEN": "t"}, no_files)
    assert '// "x": "{file:secret.txt}" {env:TOKEN}' in out
    assert "/* {file:other} */" in out
    assert jsonc.loads(out) == {"a": "t"}


def test_file_tokens_read_through_the_reader_and_are_trimmed() -> None:
    seen: list[str] = []

    def reader(arg: str) -> str:
        seen.append(arg)
        return '  key"with\\quote \n'

    out = substitute_opencode('{"k": "{file:./key.txt}"}', {}, reader)
    assert jsonc.loads(out) == {"k": 'key"with\\quote'}
    assert seen == ["./key.txt"]


def test_tokens_outside_strings_substitute_too() -> None:
    out = substitute_opencode(
        '{"timeout": {env:T}, "p": {file:/abs/path}}', {"T": "5000"}, lambda arg: "7"
    )
    assert jsonc.loads(out) == {"timeout": 5000, "p": 7}


def test_reader_errors_propagate() -> None:
    def reader(arg: str) -> str:
        raise SubstitutionError("missing")

    with pytest.raises(SubstitutionError):
        substitute_opencode('{"k": "{file:gone}"}', {}, reader)


@given(st.text())
def test_any_env_value_keeps_the_text_valid(value: str) -> None:
    out = substitute_opencode('{"v": "<{env:V}>"} // {env:V}', {"V": value}, no_files)
    assert json.loads(jsonc.strip(out)) == {"v": f"<{value}>"}
