"""What the gateway shows an agent of its backends, defanged.

A backend's tool descriptions, the descriptions and titles inside its input schemas, its
results' text (text blocks, embedded text resources, resource links' names and descriptions,
structured content) and the utilities' results are the backend's words: each string passes
:func:`lemon_core.text.defang` before the client sees it, so a terminal escape, a bidi
control, a tag character or another invisible character reaches the agent as a visible escape.
A text block or description that had any ends with defang's one-line note. Keys (property
names, field names) and enum values are left as they are: the agent sends them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemon_core.text import defang

#: Schema keys whose string value is prose for the model.
_SCHEMA_TEXT = frozenset({"description", "title"})
#: Keys of result data whose string value is prose (defanged with the note).
_NOTED = frozenset({"text", "description"})
#: How deep a schema or a result is walked (deeper parts are dropped from what is shown).
MAX_DEPTH = 64


def description(text: str | None) -> str | None:
    return None if text is None else defang(text, note=True)


def schema(value: Any, depth: int = 0) -> Any:
    """An input schema with every ``description`` and ``title`` string defanged."""
    if depth > MAX_DEPTH:
        return {}
    if isinstance(value, Mapping):
        return {key: (defang(item, note=True) if key in _SCHEMA_TEXT and isinstance(item, str)
                      else schema(item, depth + 1)) for key, item in value.items()}
    if isinstance(value, list):
        return [schema(item, depth + 1) for item in value]
    return value


def data(value: Any, depth: int = 0, key: str = "") -> Any:
    """Result data (JSON-like) with every string value defanged (keys kept); prose fields
    (``text``, ``description``) get the note."""
    if isinstance(value, str):
        return defang(value, note=key in _NOTED)
    if depth > MAX_DEPTH:
        return None
    if isinstance(value, Mapping):
        return {k: data(item, depth + 1, k if isinstance(k, str) else "")
                for k, item in value.items()}
    if isinstance(value, list):
        return [data(item, depth + 1) for item in value]
    return value


def result(value: Mapping[str, Any]) -> dict[str, Any]:
    """A remote tool's ``tools/call`` result (JSON data): its content blocks' text and
    its structured content defanged; images, audio and blobs (base64) and ``_meta`` kept."""
    shown = dict(value)
    content = shown.get("content")
    if isinstance(content, list):
        shown["content"] = [_block(block) for block in content]
    if "structuredContent" in shown:
        shown["structuredContent"] = data(shown["structuredContent"])
    return shown


def _block(block: Any) -> Any:
    if not isinstance(block, Mapping):
        return block
    kind = block.get("type")
    if kind == "text":
        return {**block, "text": data(block.get("text"), key="text")}
    if kind == "resource" and isinstance(block.get("resource"), Mapping):
        resource = dict(block["resource"])
        if isinstance(resource.get("text"), str):
            resource["text"] = defang(resource["text"], note=True)
        return {**block, "resource": resource}
    if kind == "resource_link":
        return {**block, **{k: data(block[k], key="description")
                            for k in ("name", "title", "description") if k in block}}
    return block


__all__ = ["MAX_DEPTH", "data", "description", "result", "schema"]
