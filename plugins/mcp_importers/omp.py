"""Importer of omp (oh-my-pi) MCP servers: ``.omp/mcp.json``, ``.omp/.mcp.json`` and the user
files ``~/.omp/agent/mcp.json``, ``~/.omp/agent/.mcp.json``, which are always read.

Format: ``mcpServers`` name → entry with ``type`` (stdio/http/sse), ``command``, ``args``,
``env``, ``cwd``, ``url``, ``headers``, ``enabled`` and ``timeout`` (milliseconds, 0 = none).
``auth`` and ``oauth`` are not imported. A name in the same file's ``disabledServers`` list is
imported disabled. ``${VAR}`` / ``${VAR:-default}`` expand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter, disable_names, server_map
from lemon_core.records import ImportRequest


class OmpImporter(FileImporter):
    name = "omp"
    order = 10
    project_files = ((".omp/mcp.json",), (".omp/.mcp.json",))
    user_files = ((".omp/agent/mcp.json",), (".omp/agent/.mcp.json",))

    def user_opt_in(self, ctx: LemonContext) -> bool:
        return True  # omp's own user files are always read

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        pairs = server_map(doc, "mcpServers")
        disabled = doc.get("disabledServers")
        if not isinstance(disabled, list):
            return pairs
        off = {name for name in disabled if isinstance(name, str)}
        return disable_names(pairs, off.__contains__)

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        fields = super().translate(name, raw, path, request)
        fields["timeout_ms"] = raw.get("timeout")
        return fields


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(OmpImporter())
