"""lemon_core.mcp.depth: the schema depth rule and reading a line too deep for the SDK."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from lemon_core.mcp.depth import MAX_SCHEMA_DEPTH, depth, rejection, salvage


def _nested(levels: int) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_depth_counts_containers_without_recursion() -> None:
    assert depth(1) == 0 and depth({}) == 1 and depth([[{}]]) == 3
    assert depth(_nested(10_000), stop=10**9) == 20_001  # far past any recursion limit
    assert rejection(_nested(10)) is None
    assert f"deeper than {MAX_SCHEMA_DEPTH} levels" in (rejection(_nested(400)) or "")


def test_a_tools_list_keeps_its_tools_and_marks_the_deep_one() -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 4, "result": {"tools": [
        {"name": "ok", "inputSchema": {"type": "object"}},
        {"name": "deep", "inputSchema": _nested(400)}]}})
    tools = json.loads(salvage(line) or "")["result"]["tools"]
    assert [t["name"] for t in tools] == ["ok", "deep"]
    assert tools[0]["inputSchema"] == {"type": "object"}
    assert rejection(tools[1]["inputSchema"]) is not None and depth(tools[1]) < 5


def test_an_answer_deeper_than_any_parser_becomes_an_error_for_its_id() -> None:
    line = '{"jsonrpc": "2.0", "result": {"x": ' + "[" * 9000 + "]" * 9000 + '}, "id": "r-7"}'
    answer = json.loads(salvage(line) or "")
    assert answer["id"] == "r-7" and "nests too deeply" in answer["error"]["message"]
    assert salvage("not json") is None
    assert salvage('{"jsonrpc": "2.0", "method": "x", "params": {}}') is None  # not an answer


@given(st.recursive(st.none() | st.integers(), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=2), inner, max_size=3)))
def test_depth_agrees_with_the_recursive_definition(value: object) -> None:
    def plain(v: object) -> int:
        if isinstance(v, dict):
            return 1 + max((plain(c) for c in v.values()), default=0)
        if isinstance(v, list):
            return 1 + max((plain(c) for c in v), default=0)
        return 0

    assert depth(value, stop=10**9) == plain(value)
