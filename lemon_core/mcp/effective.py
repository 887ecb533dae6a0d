"""The effective MCP server set: every source merged, with each server's enabled state.

Claim order (the first entry for a name claims it, even when it is disabled; unnamed entries
never claim and are all kept):

1. the project file ``<cwd>/.lemon/mcp.json`` (not for the global scope),
2. the global file ``<agent dir>/mcp.json``,
3. ``LEMON_MCP_SERVERS``,
3a. the application's servers given in code (:class:`lemon_core.mcp.appconfig.McpAppConfig`),
4. servers imported from other tools (:func:`lemon_core.mcp.importing.import_servers`, already
   in their own claim order; the global scope keeps only user-level imports).

Enabled state of a named server: the project file's ``disabled_servers`` / ``enabled_servers``
decide (within one file the denylist wins); else the global file's; else the entry's own
``"enabled"`` / ``"disabled"``. Unnamed entries keep their own flag. The top-level ``"enabled":
false`` (project file first, then global) or ``LEMON_MCP_DISABLED=1`` turns every server off.

A problem in a lemon file never switches a server on (:mod:`lemon_core.mcp.lenient`). An
invalid entry is reported in ``errors`` and skipped, but its name stays claimed (no other
source's server of that name is used), and the rest of its file (entries, lists, switch) still
applies. A file that cannot be used at all (unreadable, too large, not JSON, wrong shape,
invalid lists or switch) could have disabled any server: every server of the set is then
reported disabled with the state ``unreadable``, and ``mcp_enabled`` is false, until it is
fixed. An invalid ``LEMON_MCP_SERVERS`` contributes nothing (it holds no lists to lose).
"""

from __future__ import annotations

from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.mcp.config import LemonScope, McpConfigError, McpFile, env_servers
from lemon_core.mcp.importing import SCOPES, SHADOWED, import_servers
from lemon_core.mcp.lenient import ENTRY_KIND, LenientFile, read_lenient
from lemon_core.models import McpServer

#: The state of every server while a lemon file of the scope cannot be used (fail closed).
UNREADABLE = "unreadable"


@attrs.frozen
class EffectiveServer:
    """A server of the effective set; ``state`` says what decided ``enabled``: ``entry``
    (its own flag), ``project`` or ``global`` (that file's lists), ``off`` (MCP is off) or
    ``unreadable`` (a lemon file of the scope cannot be used: every server is disabled)."""

    server: McpServer
    enabled: bool
    state: str = "entry"

    @property
    def name(self) -> str | None:
        return self.server.name


@attrs.frozen
class SkippedServer:
    """``name`` is None when it must not be shown (``substituted_name``); ``index`` is the
    entry's position in its file, when known."""

    name: str | None
    provider: str
    scope: str
    file: str | None
    reason: str
    index: int | None = None


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


def _lemon_files(
    ctx: LemonContext, scope: LemonScope, errors: list[SourceError]
) -> list[LenientFile]:
    scopes: tuple[LemonScope, ...] = ("project", "global") if scope == "project" else ("global",)
    files = [read_lenient(ctx, file_scope) for file_scope in scopes]
    for item in files:
        errors.extend(
            SourceError("lemon", item.scope, str(item.path), exc.kind, str(exc))
            for exc in item.errors
        )
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
    ctx: LemonContext, *, scope: LemonScope = "project", imported: Any = None,
    app: Any = None,
) -> EffectiveSet:
    """Merge every source for ``scope`` (``project``: the requesting directory ``ctx.cwd``).

    :param imported: an :class:`~lemon_core.mcp.importing.ImportOutcome` to use instead of
        running the importers (embedders that already imported, and tests).
    :param app: the application configuration given in code
        (:class:`~lemon_core.mcp.appconfig.McpAppConfig`): its servers after
        ``LEMON_MCP_SERVERS``, its switches where the environment leaves them unset.
    """
    if app is not None:
        ctx = app.context(ctx)
    errors: list[SourceError] = []
    lemon_files = _lemon_files(ctx, scope, errors)
    files = [item.file for item in lemon_files if item.file is not None]
    blocked = len(files) < len(lemon_files)  # a file that could have disabled anything
    # A str candidate is a name an invalid entry reserves: it claims the name, with no server.
    candidates: list[McpServer | str] = []
    for item in lemon_files:
        if item.file is not None:
            candidates.extend(item.file.servers)
            candidates.extend(sorted(item.reserved))
    try:
        candidates.extend(env_servers(ctx))
    except McpConfigError as exc:
        errors.append(SourceError("env", "env", None, exc.kind, str(exc)))
    if app is not None:
        app_servers, problems = app.servers()
        candidates.extend(app_servers)
        errors.extend(SourceError("app", "app", None, ENTRY_KIND, p.message) for p in problems)
    i_servers, i_skipped, i_errors = _imported(ctx, scope, imported)
    candidates.extend(i_servers)
    skipped = [SkippedServer(s.name, s.provider, s.scope, s.file, s.reason, s.index)
               for s in i_skipped]  # fmt: skip
    errors.extend(SourceError(e.provider, e.scope, e.file, e.kind, e.message) for e in i_errors)

    switch = next((f.enabled for f in files if f.enabled is not None), True)
    mcp_enabled = switch and not blocked and ctx.flag("LEMON_MCP_DISABLED") is not True
    servers: list[EffectiveServer] = []
    claimed: set[str] = set()
    for server in candidates:
        if isinstance(server, str):
            claimed.add(server)
            continue
        name = server.name
        if name is not None and name in claimed:
            src = server.source
            skipped.append(SkippedServer(name, src.provider, src.scope, src.file, SHADOWED))
            continue
        if name is not None:
            claimed.add(name)
        servers.append(_state(server, files, mcp_enabled, blocked))
    return EffectiveSet(scope, mcp_enabled, tuple(servers), tuple(skipped), tuple(errors))


def _state(
    server: McpServer, files: list[McpFile], mcp_enabled: bool, blocked: bool
) -> EffectiveServer:
    if blocked:
        return EffectiveServer(server, False, UNREADABLE)
    if not mcp_enabled:
        return EffectiveServer(server, False, "off")
    if server.name is not None:
        for mcp_file in files:
            state = mcp_file.state_for(server.name)
            if state is not None:
                return EffectiveServer(server, state, mcp_file.scope)
    return EffectiveServer(server, server.enabled, "entry")


__all__ = [
    "ENTRY_KIND",
    "SHADOWED",
    "UNREADABLE",
    "EffectiveServer",
    "EffectiveSet",
    "SkippedServer",
    "SourceError",
    "effective_servers",
]
