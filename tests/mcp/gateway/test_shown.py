"""``lemon mcp serve`` shows a backend's hidden characters as escapes (issue 17 §5): its tool
descriptions, schema descriptions, results, errors, resources and prompts, through the SDK's
real client against the real gateway and a real hostile backend."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from lemon_core.mcp.gateway import shown
from tests.mcp.gateway.support import gateway

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

BACKEND = str(Path(__file__).parent / "hostile_backend.py")
HIDING = ("\x1b", "\u202e", "\u200b", "\U000e0072")


def _raw(text: Any) -> list[str]:
    """The hiding characters still present anywhere in ``text`` (any JSON-able value)."""
    flat = json.dumps(text, ensure_ascii=False, default=str) if not isinstance(text, str) \
        else text
    return [c for c in HIDING if c in flat]


def _texts(result: Any) -> list[str]:
    return [getattr(block, "text", None) or getattr(getattr(block, "resource", None), "text",
                                                    None) or "" for block in result.content]


def test_every_text_of_a_backend_reaches_the_agent_defanged(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    agent = tmp_path / "agent"  # the user's own global file: trusted, whoever asks
    agent.mkdir()
    (agent / "mcp.json").write_text(json.dumps({"servers": [{
        "name": "hostile", "type": "stdio", "command": sys.executable, "args": [BACKEND],
        "timeout_ms": 60_000, "ready_timeout_ms": 60_000}]}), encoding="utf-8")

    async def body() -> None:
        async with gateway(project, tmp_path) as client:
            tools = {t.name.split("_")[2]: t for t in (await client.list_tools()).tools
                     if t.name.startswith("mcp_hostile_")}
            assert {"note", "fail", "resources", "resource", "prompts", "prompt"} <= set(tools)
            note = tools["note"]
            assert _raw(note.description) == [] and "\\u202eevil\\U000e0072" in note.description
            assert note.description.endswith("the original hides them]")
            assert _raw(note.input_schema) == []
            assert "\\x1b[8m" in note.input_schema["properties"]["path"]["description"]
            assert "\\u202e" in note.input_schema["title"]
            assert note.input_schema["properties"]["path"]["enum"] == ["a", "b"]  # kept

            called = await client.call_tool(note.name, {"path": "a"})
            assert not called.is_error
            assert _raw(_texts(called)) == [] and _raw(called.content[2].name) == []
            assert _raw(called.content[2].description) == []
            assert "\\u202eevil" in _texts(called)[0] and "[lemon: " in _texts(called)[0]
            assert "\\u202eevil" in _texts(called)[1]
            assert _raw(called.structured_content) == []
            assert "\\u202e" in called.structured_content["answer"]

            failed = await client.call_tool(tools["fail"].name, {})
            assert failed.is_error and _raw(_texts(failed)) == []
            assert "\\x1b[8m" in _texts(failed)[0]

            listed = await client.call_tool(tools["resources"].name, {})
            read = await client.call_tool(tools["resource"].name, {"uri": "note://evil"})
            prompts = await client.call_tool(tools["prompts"].name, {})
            prompt = await client.call_tool(tools["prompt"].name, {"name": "evil"})
            for result in (listed, read, prompts, prompt):
                assert not result.is_error, _texts(result)
                assert _raw(_texts(result)) == [] and _raw(result.structured_content) == []
                assert "\\u202eevil" in _texts(result)[0]
            assert "resource see" in read.structured_content["contents"][0]["text"]

    anyio.run(body)


def test_schema_walk_is_bounded_and_keeps_keys() -> None:
    deep: dict[str, Any] = {"description": "x\u202e"}
    for _ in range(200):
        deep = {"properties": {"a\u202e": deep}, "description": "d\u202e"}
    walked = shown.schema(deep)
    assert "a\u202e" in walked["properties"]  # a key is the agent's to send back: kept
    assert walked["description"] == "d\\u202e [lemon: 1 invisible or control character in " \
        "this text is shown as escapes such as \\u202e; the original hides it]"
    level, depth = walked, 0
    while level:
        assert "\u202e" not in level.get("description", "")
        level, depth = level.get("properties", {}).get("a\u202e"), depth + 1
    assert depth < 70  # walked no deeper than MAX_DEPTH
    assert shown.description(None) is None
    assert shown.data({"k": [1, None, "t\u200b"]}) == {"k": [1, None, "t\\u200b"]}
