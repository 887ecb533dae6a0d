"""How deep a server's JSON may nest: a tool's ``inputSchema`` at most :data:`MAX_SCHEMA_DEPTH`
levels, and what lemon does with a message the SDK's parser refuses as too deep.

The SDK's JSON parser (pydantic-core) stops at a fixed nesting depth and then drops the whole
line, so a request waiting on it used to time out ("no answer within 10 s"). Here such a line is
read again with the standard library's parser (bounded by the interpreter's recursion limit):

- a ``tools/list`` answer keeps every tool; a tool whose ``inputSchema`` (or ``outputSchema``)
  nests deeper than :data:`MAX_SCHEMA_DEPTH` gets the small stand-in :func:`rejected_schema`,
  which the tool host recognises (:func:`rejection`) and leaves the tool out with a message
  naming the server, the tool and the limit: the other tools stay usable;
- any other answer too deep to read becomes a JSON-RPC error for its request id, so the
  request fails at once instead of waiting out its timeout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

#: The deepest nesting (objects and arrays) of a tool's ``inputSchema`` lemon accepts.
MAX_SCHEMA_DEPTH = 100
#: The key of the stand-in schema that marks a tool left out for its depth.
REJECTED_KEY = "x-lemon-rejected"
#: The JSON-RPC error code of an answer too deep to read (an internal error, said in words).
TOO_DEEP_CODE = -32603

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]]')
_COLON = re.compile(r"\s*:\s*")


def depth(value: Any, stop: int = MAX_SCHEMA_DEPTH + 1) -> int:
    """The nesting depth of JSON data (a scalar is 0, ``{}`` is 1), counted without recursion
    and no further than ``stop``."""
    deepest = 0
    level = [(value, 1)]
    while level:
        item, at = level.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, at)
        if deepest >= stop:
            return deepest
        level.extend((child, at + 1) for child in children)
    return deepest


def rejected_schema() -> dict[str, Any]:
    return {"type": "object", REJECTED_KEY: f"nests deeper than {MAX_SCHEMA_DEPTH} levels"}


def rejection(schema: Any) -> str | None:
    """Why lemon leaves out a tool with this ``inputSchema``, or None: it nests deeper than
    :data:`MAX_SCHEMA_DEPTH` (found here, or by the transport, which left the stand-in)."""
    if isinstance(schema, Mapping) and REJECTED_KEY in schema or \
            depth(schema) > MAX_SCHEMA_DEPTH:
        return (f"its inputSchema nests deeper than {MAX_SCHEMA_DEPTH} levels "
                "(lemon's limit)")
    return None


def salvage(line: bytes | str) -> str | None:
    """A line the SDK's parser refused, made readable when it was refused for its depth (see
    the module docstring); None when depth was not the problem (the original error stands)."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
    except ValueError:
        return None  # not JSON at all: not a depth problem
    if isinstance(data, dict):
        fixed = _prune_tools(data)
        if fixed is not None:
            return json.dumps(fixed)
        if "id" in data and "method" not in data:
            return _too_deep(data["id"])
        return None
    ident = _top_level_id(text)
    return _too_deep(ident) if ident is not None else None


def _prune_tools(data: dict[str, Any]) -> dict[str, Any] | None:
    result = data.get("result")
    if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return None
    tools = result["tools"]
    kept = []
    for tool in tools:
        if isinstance(tool, dict):
            tool = dict(tool)
            if depth(tool.get("inputSchema")) > MAX_SCHEMA_DEPTH:
                tool["inputSchema"] = rejected_schema()
            if depth(tool.get("outputSchema")) > MAX_SCHEMA_DEPTH:
                tool["inputSchema"] = rejected_schema()
                tool.pop("outputSchema", None)
        kept.append(tool)
    return {**data, "result": {**result, "tools": kept}}


def _too_deep(ident: Any) -> str | None:
    if not isinstance(ident, int | str) or isinstance(ident, bool):
        return None
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {
        "code": TOO_DEEP_CODE,
        "message": "the server's answer nests too deeply for lemon to read"}})


def _top_level_id(text: str) -> Any:
    """The ``id`` member of the outermost object of ``text``, found by scanning brackets and
    strings (no recursion, for JSON deeper than the standard parser reads), or None."""
    level = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            level += 1
        elif token in "}]":
            level -= 1
        elif level == 1 and token == '"id"':
            colon = _COLON.match(text, match.end())
            if colon is None:
                return None
            try:
                return json.JSONDecoder().raw_decode(text, colon.end())[0]
            except ValueError:
                return None
    return None


__all__ = ["MAX_SCHEMA_DEPTH", "REJECTED_KEY", "depth", "rejected_schema", "rejection",
           "salvage"]
