"""Importer of Windsurf MCP servers: ``.windsurf/mcp_config.json`` and (opt-in)
``~/.codeium/windsurf/mcp_config.json``, key ``mcpServers``.

``serverUrl`` (or, without it, ``url``) is the URL; ``command``, ``args``, ``env``, ``headers``
as usual. The app's own ``disabled: true`` imports the entry disabled, and its
``disabledTools`` list becomes the block list. ``${VAR}`` / ``${VAR:-default}`` expand;
Windsurf's ``${env:VAR}`` stays literal.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter
from lemon_core.records import ImportRequest


class WindsurfImporter(FileImporter):
    name = "windsurf"
    order = 70
    project_files = ((".windsurf/mcp_config.json",),)
    user_files = ((".codeium/windsurf/mcp_config.json",),)

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        fields = super().translate(name, raw, path, request)
        if raw.get("serverUrl") is not None:
            fields["url"] = raw["serverUrl"]
        fields["block_tools"] = raw.get("disabledTools")
        return fields


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(WindsurfImporter())
