"""Importer of the project-root ``mcp.json`` and ``.mcp.json`` (provider id ``root``), read last
of all providers. Key ``mcpServers``, Claude Code's entry format (``type`` stdio/http/sse,
``command``, ``args``, ``env``, ``url``, ``headers``); ``${VAR}`` / ``${VAR:-default}`` expand.
There are no user-level root files.
"""

from __future__ import annotations

from typing import Any

from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter


class RootFilesImporter(FileImporter):
    name = "root"
    order = 90
    project_files = (("mcp.json",), (".mcp.json",))


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(RootFilesImporter())
