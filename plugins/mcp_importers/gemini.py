"""Importer of Gemini CLI MCP servers: ``.gemini/settings.json`` and (opt-in)
``~/.gemini/settings.json`` (JSON with comments, as Gemini reads it), key ``mcpServers``.

- Transport: ``httpUrl`` is Streamable HTTP (and wins over ``url``); a bare ``url`` is SSE, or
  what its ``type`` ("http", "sse") says; ``command`` is stdio (``type`` is not read then).
- ``timeout`` is milliseconds; ``includeTools`` / ``excludeTools`` become the allow/block lists.
- A name in ``mcp.excluded``, or missing from ``mcp.allowed`` when that list exists, is
  imported disabled, as Gemini would not start it.
- ``oauth``, ``authProviderType``, ``targetAudience``, ``targetServiceAccount`` are not imported.
  ``${VAR}`` / ``${VAR:-default}`` expand (bare ``$VAR`` stays literal).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit import jsonc
from lemon_core.mcp.importer_kit.files import (
    STATE_KEYS,
    FileImporter,
    disable_names,
    server_map,
)
from lemon_core.records import ImportRequest


def _names(value: Any) -> set[str] | None:
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else None


class GeminiImporter(FileImporter):
    name = "gemini"
    order = 40
    project_files = ((".gemini/settings.json",),)
    user_files = ((".gemini/settings.json",),)

    def parse(self, text: str, path: Path, request: ImportRequest) -> Any:
        return jsonc.loads(text)

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        pairs = server_map(doc, "mcpServers")
        mcp = doc.get("mcp")
        mcp = mcp if isinstance(mcp, Mapping) else {}
        excluded = _names(mcp.get("excluded")) or set()
        allowed = _names(mcp.get("allowed"))
        return disable_names(
            pairs, lambda name: name in excluded or (allowed is not None and name not in allowed)
        )

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        keys = ("command", "args", "env", "cwd", "headers", *STATE_KEYS)
        fields = {key: raw.get(key) for key in keys}
        if raw.get("httpUrl") is not None:
            fields["url"], fields["type"] = raw["httpUrl"], "http"
        elif raw.get("url") is not None:
            explicit = raw.get("type")
            fields["url"], fields["type"] = raw["url"], "sse" if explicit is None else explicit
        fields["timeout_ms"] = raw.get("timeout")
        fields["allow_tools"] = raw.get("includeTools")
        fields["block_tools"] = raw.get("excludeTools")
        return fields


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(GeminiImporter())
