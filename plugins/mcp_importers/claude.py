"""Importer of Claude Code MCP servers.

- Project: ``.claude/.mcp.json``, else (when it yields no server) ``.claude/mcp.json``.
- User (opt-in, or ``CLAUDE_CONFIG_DIR`` set): ``~/.claude.json``, first
  ``projects[<absolute requesting directory>].mcpServers`` then the top-level ``mcpServers``;
  ``~/.claude/mcp.json`` only when ``~/.claude.json`` yields no server for this directory.
  ``CLAUDE_CONFIG_DIR`` relocates both into that directory (``$CLAUDE_CONFIG_DIR/.claude.json``,
  ``$CLAUDE_CONFIG_DIR/mcp.json``).

``~/.claude.json`` also holds Claude Code's per-project history and often exceeds the 4 MiB
every other file is capped at: it is read up to :data:`STATE_FILE_MAX_BYTES` (64 MiB).

Entries: ``type`` (stdio/http/sse), ``command``, ``args``, ``env``, ``url``, ``headers``;
``oauth`` and ``headersHelper`` are not imported. ``${VAR}`` / ``${VAR:-default}`` expand.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.fsio.read import FileProblem
from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter, server_map
from lemon_core.records import ImportRequest

STATE_FILE = ".claude.json"
#: The size cap of the user state file (larger files are reported "too large", unread).
STATE_FILE_MAX_BYTES = 64 * 1024 * 1024


def _spellings(path: str, windows: bool, resolve: bool = False) -> set[str]:
    """``path`` normalised (and, with ``resolve``, its real path); case-folded on Windows."""
    forms = {os.path.normpath(path)}
    if resolve:
        try:
            forms.add(os.path.realpath(path))
        except (OSError, ValueError):  # a NUL or an unresolvable key: compare as written
            pass
    if windows:
        forms |= {form.replace("\\", "/").casefold() for form in forms}
    return forms


def project_servers(
    doc: Mapping[str, Any], cwd: Path, windows: bool = False
) -> list[tuple[str, Any]]:
    """The ``projects[<cwd>].mcpServers`` pairs of a ``.claude.json`` (cwd or its realpath)."""
    projects = doc.get("projects")
    if not isinstance(projects, Mapping):
        return []
    wanted = _spellings(str(cwd), windows, resolve=True)
    pairs: list[tuple[str, Any]] = []
    for key, project in projects.items():
        if not (isinstance(key, str) and isinstance(project, Mapping) and os.path.isabs(key)):
            continue
        if _spellings(key, windows) & wanted or _spellings(key, windows, resolve=True) & wanted:
            servers = project.get("mcpServers")
            if servers is None:
                continue
            if not isinstance(servers, Mapping):
                raise FileProblem("schema", "projects.<directory>.mcpServers is not an object")
            pairs.extend(servers.items())
    return pairs


class ClaudeImporter(FileImporter):
    name = "claude"
    order = 20
    project_files = ((".claude/.mcp.json", ".claude/mcp.json"),)
    user_files = ((STATE_FILE, ".claude/mcp.json"),)

    def _config_dir(self, ctx: LemonContext) -> Path | None:
        configured = ctx.getenv("CLAUDE_CONFIG_DIR")
        return ctx.expand_path(configured) if configured else None

    def user_opt_in(self, ctx: LemonContext) -> bool:
        return self._config_dir(ctx) is not None

    def user_chains(self, ctx: LemonContext, home: Path) -> list[tuple[Path, ...]]:
        config_dir = self._config_dir(ctx)
        if config_dir is not None:
            return [(config_dir / STATE_FILE, config_dir / "mcp.json")]
        return super().user_chains(ctx, home)

    def user_paths(self, ctx: LemonContext, home: Path) -> list[Path]:
        # Both the default and the relocated files are user files, whichever is read.
        return [*super().user_chains(ctx, home)[0], *self.user_chains(ctx, home)[0]]

    def _is_state_file(self, path: Path, request: ImportRequest) -> bool:
        return request.scope == "user" and path.name == STATE_FILE

    def max_bytes(self, path: Path, request: ImportRequest) -> int:
        if self._is_state_file(path, request):
            return max(STATE_FILE_MAX_BYTES, request.max_bytes)
        return super().max_bytes(path, request)

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        if self._is_state_file(path, request):
            top = server_map(doc, "mcpServers")  # also checks that doc is an object
            windows = request.ctx.platform == "win32"
            return [*project_servers(doc, request.cwd, windows), *top]
        return server_map(doc, "mcpServers")


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(ClaudeImporter())
