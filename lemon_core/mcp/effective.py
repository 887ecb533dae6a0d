"""The effective MCP server set: every source merged, with each server's enabled state.

Claim order (the first entry for a name claims it, even when it is disabled; unnamed entries
never claim and are all kept):

1. the project file ``<cwd>/.lemon/mcp.json`` (not for the global scope),
2. the global file ``<agent dir>/mcp.json``,
3. ``LEMON_MCP_SERVERS``,
4. servers imported from other tools (:func:`lemon_core.mcp.importing.import_servers`, already
   in their own claim order; the global scope keeps only user-level imports).

Enabled state of a named server: the project file's ``disabled_servers`` / ``enabled_servers``
decide (within one file the denylist wins); else the global file's; else the entry's own
``"enabled"`` / ``"disabled"``. Unnamed entries keep their own flag. The top-level ``"enabled":
false`` (project file first, then global) or ``LEMON_MCP_DISABLED=1`` turns every server off.

A lemon source that cannot be read or fails validation contributes nothing (not even its
enable/disable lists) and is reported in ``errors``; the rest still counts.
"""

from __future__ import annotations

from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.mcp.config import (
    LemonScope,
    McpConfigError,
    McpFile,
    env_servers,
    mcp_path,
    read_file,
)
from lemon_core.mcp.importing import SCOPES, SHADOWED, import_servers
from lemon_core.models import McpServer


@attrs.frozen
class EffectiveServer:
    """A server of the effective set; ``state`` says what decided ``enabled``: ``entry``
    (its own flag), ``project`` or ``global`` (that file's lists), or ``off`` (MCP is off)."""

    server: McpServer
    enabled: bool
    state: str = "entry"

    @property
    def name(self) -> str | None:
        return self.server.name


@attrs.frozen
class SkippedServer:
    name: str | None
    provider: str
    scope: str
    file: str | None
    reason: str


@attrs.frozen
class SourceError:
    provider: str
    scope: str
    file: str | None
    kind: str
    message: str


@attrs.frozen
class EffectiveSet:
    """The merged set for ``scope``, what was skipped, and which sources failed."""

    scope: LemonScope
    mcp_enabled: bool
    servers: tuple[EffectiveServer, ...] = ()
    skipped: tuple[SkippedServer, ...] = ()
    errors: tuple[SourceError, ...] = ()

    def get(self, name: str) -> EffectiveServer | None:
        """The server that claimed ``name``, or None."""
        return next((s for s in self.servers if s.name == name), None)


def _lemon_files(ctx: LemonContext, scope: LemonScope, errors: list[SourceError]) -> list[McpFile]:
    files = []
    for file_scope in ("project", "global") if scope == "project" else ("global",):
        try:
            files.append(read_file(ctx, file_scope))  # type: ignore[arg-type]
        except McpConfigError as exc:
            path = str(mcp_path(ctx, file_scope))
            errors.append(SourceError("lemon", file_scope, path, exc.kind, str(exc)))
    return files


def _imported(
    ctx: LemonContext, scope: LemonScope, imported: Any
) -> tuple[tuple[McpServer, ...], tuple[Any, ...], tuple[Any, ...]]:
    """(servers, skipped, errors) of the import, only user-level ones for the global scope
    (where project-level imports neither count nor claim a name)."""
    if imported is None:
        imported = import_servers(ctx, scopes=("user",) if scope == "global" else SCOPES)
    servers, skipped, errors = imported.servers, imported.skipped, imported.errors
    if scope == "global":
        servers = tuple(s for s in servers if s.source.scope != "project")
        skipped = tuple(s for s in skipped if s.scope != "project")
        errors = tuple(e for e in errors if e.scope != "project")
    return tuple(servers), tuple(skipped), tuple(errors)


def effective_servers(
    ctx: LemonContext, *, scope: LemonScope = "project", imported: Any = None
) -> EffectiveSet:
    """Merge every source for ``scope`` (``project``: the requesting directory ``ctx.cwd``).

    :param imported: an :class:`~lemon_core.mcp.importing.ImportOutcome` to use instead of
        running the importers (embedders that already imported, and tests).
    """
    errors: list[SourceError] = []
    files = _lemon_files(ctx, scope, errors)
    candidates: list[McpServer] = [s for f in files for s in f.servers]
    try:
        candidates.extend(env_servers(ctx))
    except McpConfigError as exc:
        errors.append(SourceError("env", "env", None, exc.kind, str(exc)))
    i_servers, i_skipped, i_errors = _imported(ctx, scope, imported)
    candidates.extend(i_servers)
    skipped = [SkippedServer(s.name, s.provider, s.scope, s.file, s.reason) for s in i_skipped]
    errors.extend(SourceError(e.provider, e.scope, e.file, e.kind, e.message) for e in i_errors)

    switch = next((f.enabled for f in files if f.enabled is not None), True)
    mcp_enabled = switch and ctx.flag("LEMON_MCP_DISABLED") is not True
    servers: list[EffectiveServer] = []
    claimed: set[str] = set()
    for server in candidates:
        name = server.name
        if name is not None and name in claimed:
            src = server.source
            skipped.append(SkippedServer(name, src.provider, src.scope, src.file, SHADOWED))
            continue
        if name is not None:
            claimed.add(name)
        servers.append(_state(server, files, mcp_enabled))
    return EffectiveSet(scope, mcp_enabled, tuple(servers), tuple(skipped), tuple(errors))


def _state(server: McpServer, files: list[McpFile], mcp_enabled: bool) -> EffectiveServer:
    if not mcp_enabled:
        return EffectiveServer(server, False, "off")
    if server.name is not None:
        for mcp_file in files:
            state = mcp_file.state_for(server.name)
            if state is not None:
                return EffectiveServer(server, state, mcp_file.scope)
    return EffectiveServer(server, server.enabled, "entry")


__all__ = [
    "SHADOWED",
    "EffectiveServer",
    "EffectiveSet",
    "SkippedServer",
    "SourceError",
    "effective_servers",
]
