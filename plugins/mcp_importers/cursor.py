"""Importer of Cursor MCP servers: ``.cursor/mcp.json`` and (opt-in) ``~/.cursor/mcp.json``.

Key ``mcpServers``; entries ``type`` (optional), ``command``, ``args``, ``env``, ``url``,
``headers``. ``auth`` (static OAuth) and ``envFile`` are not imported. ``${VAR}`` /
``${VAR:-default}`` expand; Cursor's own ``${env:NAME}``, ``${userHome}`` and
``${workspaceFolder}`` stay literal.
"""

from __future__ import annotations

from typing import Any

from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter


class CursorImporter(FileImporter):
    name = "cursor"
    order = 60
    project_files = ((".cursor/mcp.json",),)
    user_files = ((".cursor/mcp.json",),)


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(CursorImporter())
