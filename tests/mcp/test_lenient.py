"""The effective set's reading of lemon's own files: entry by entry, failing closed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.mcp.config import McpConfigError, parse_file
from lemon_core.mcp.lenient import ENTRY_KIND, parse_lenient
from tests.mcp.support import SECRETS, assert_no_secrets

P = Path("/p/.lemon/mcp.json")
GOOD = {"name": "good", "type": "stdio", "command": "c"}


def lenient(data: Any) -> Any:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return parse_lenient(raw, P, "project")


def test_a_missing_file_is_empty_and_usable() -> None:
    result = parse_lenient(None, P, "project")
    assert result.file is not None and not result.file.exists and result.errors == ()


def test_invalid_entries_are_skipped_and_named_ones_reserved() -> None:
    result = lenient({
        "enabled": False, "enabled_servers": ["a"], "disabled_servers": ["b"],
        "servers": [GOOD, "not an object", {"name": "bad", "type": "stdio",
                                             "command": SECRETS[4], "env": {"K": 1}},
                    {"name": "bad name", "type": "ftp"}, {"type": "sse"}],
    })  # fmt: skip
    assert result.file is not None
    assert [s.name for s in result.file.servers] == ["good"]
    assert (result.file.enabled, result.file.enabled_servers, result.file.disabled_servers) == (
        False, ("a",), ("b",),
    )  # fmt: skip
    assert result.reserved == {"bad"}
    assert [e.kind for e in result.errors] == [ENTRY_KIND] * 4
    assert [str(e).split(":")[1].strip() for e in result.errors] == [
        "servers[1]", 'servers[2] "bad"', "servers[3]", "servers[4]",
    ]  # fmt: skip
    assert "skipped" in str(result.errors[1]) and '"bad" is used until' in str(result.errors[1])
    assert_no_secrets(*(str(e) for e in result.errors))


def test_duplicate_names_reserve_the_name() -> None:
    result = lenient({"servers": [GOOD, {**GOOD, "name": "x"}, GOOD, {**GOOD, "command": "d"}]})
    assert result.file is not None and [s.name for s in result.file.servers] == ["x"]
    assert result.reserved == {"good"}
    [error] = result.errors
    assert "servers[0], servers[2] and servers[3] are all named \"good\"" in str(error)


@pytest.mark.parametrize(
    "content",
    [b"{", b"[]", b'{"servers": {}}', b'{"enabled": 1}', b'{"disabled_servers": [null]}',
     b'{"enabled_servers": "x"}', b"\xff", b'{"a": 1, "a": 2}'],
)  # fmt: skip
def test_a_file_level_problem_makes_it_unusable(content: bytes) -> None:
    result = lenient(content)
    assert result.file is None and result.reserved == frozenset()
    [error] = result.errors
    with pytest.raises(McpConfigError) as strict:
        parse_file(content, P, "project")
    assert error.kind == strict.value.kind != ENTRY_KIND
    assert str(error).startswith(str(strict.value)) and "until this file is fixed" in str(error)


LISTS = ("disabled_servers",)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=3),
    max_leaves=12,
)  # fmt: skip
_entry = st.fixed_dictionaries(
    {},
    optional={"name": st.sampled_from(["a", "b", "bad name"]) | _json,
              "type": st.sampled_from(["stdio", "http", "sse"]) | _json,
              "command": st.just("c") | _json, "url": st.just("https://x.example") | _json,
              "env": _json, "enabled": _json, "timeout_ms": _json},
)  # fmt: skip


@pytest.mark.slow
@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["servers", "enabled", "enabled_servers", "x", *LISTS]),
                       st.lists(_entry | _json, max_size=4) | _json, max_size=4))  # fmt: skip
def test_lenient_agrees_with_strict_and_never_raises(data: dict[str, Any]) -> None:
    raw = json.dumps(data).encode()
    result = parse_lenient(raw, P, "project")
    try:
        strict = parse_file(raw, P, "project")
    except McpConfigError as exc:
        if result.file is None:  # a file-level problem: the same one
            assert [e.kind for e in result.errors] == [exc.kind]
            return
        # entry problems only: reported one by one; the rest of the file is kept
        assert result.errors and all(e.kind == ENTRY_KIND for e in result.errors)
        names = [s.name for s in result.file.servers if s.name is not None]
        assert len(names) == len(set(names)) and not set(names) & result.reserved
        assert list(result.file.disabled_servers) == data.get("disabled_servers", [])
        return
    assert result.errors == () and result.reserved == frozenset()
    assert result.file is not None and result.file.servers == strict.servers
    assert (result.file.enabled, result.file.enabled_servers, result.file.disabled_servers) == (
        strict.enabled, strict.enabled_servers, strict.disabled_servers,
    )  # fmt: skip
