"""Importer of VS Code MCP servers: ``.vscode/mcp.json`` only (VS Code's user-profile file is
not imported). JSON with comments, as VS Code reads it.

Servers come from ``servers`` (the documented key), then from the older ``mcp.servers``
(nested, or the flat ``"mcp.servers"`` key of settings files).
Entries: ``type`` (stdio/http/sse), ``command``, ``args``, ``env``, ``cwd``, ``url``,
``headers``; ``envFile``, ``dev`` and ``inputs`` are not imported. ``${workspaceFolder}`` is the
requesting directory and ``${VAR}`` / ``${VAR:-default}`` expand; ``${input:…}`` and
``${env:…}`` stay literal.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit import jsonc
from lemon_core.mcp.importer_kit.expand import expand_vars
from lemon_core.mcp.importer_kit.files import FileImporter, server_map
from lemon_core.mcp.importer_kit.normalise import Expander
from lemon_core.records import ImportRequest


class VsCodeImporter(FileImporter):
    name = "vscode"
    order = 80
    project_files = ((".vscode/mcp.json",),)

    def parse(self, text: str, path: Path, request: ImportRequest) -> Any:
        return jsonc.loads(text)

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        return [
            *server_map(doc, "servers"),
            *server_map(doc, "mcp", "servers"),
            *server_map(doc, "mcp.servers"),  # the flat spelling of settings files
        ]

    def expander(self, request: ImportRequest) -> Expander | None:
        env = request.ctx.env
        predefined = {"workspaceFolder": str(request.cwd)}
        return lambda value: expand_vars(value, env, predefined)


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(VsCodeImporter())
