"""The import host: which importers run, on which files, and which entry claims each name.

:func:`import_servers` asks every registered :class:`~lemon_core.protocols.McpImporter`, in
provider order, for the entries of its project files, then of its user files when the user
opted that provider in, and keeps the first valid entry for each name. Importers report what
they skipped and which files failed; the host collects both.

Environment (read from the :class:`~lemon_core.context.LemonContext`, never ``os.environ``):

- ``LEMON_MCP_EXTERNAL_DISCOVERY=0``: import nothing.
- ``LEMON_MCP_EXTERNAL_USER_DISCOVERY``: ``1`` reads every provider's user files, or a comma
  list of provider ids (``claude,codex``). omp's user files are always read.
- ``LEMON_MCP_DISCOVERY_HOME``: the home directory user files are read under (default: the
  context's home). When the runtime is isolated (``LEMON_AGENT_DIR`` or a ``LEMON_*_SKILLS_DIR``
  override) and this is unset, no user file is read at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from lemon_core.mcp.importer_kit.normalise import valid_name
from lemon_core.mcp.schema import check_server
from lemon_core.models import McpServer
from lemon_core.protocols import UserOptIn, UserPaths
from lemon_core.records import (
    ImportFailure,
    ImportOutcome,
    ImportRequest,
    ImportScope,
    SkippedEntry,
    _printable,
    _real,
)

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugins import Plugins
    from lemon_core.protocols import McpImporter

SCOPES: tuple[ImportScope, ...] = ("project", "user")
_ALL = frozenset({"1", "true", "yes", "on", "all", "*"})
#: The reason reported for an entry whose name an earlier entry (or source) already claimed.
SHADOWED = "shadowed"


# -- settings ---------------------------------------------------------------------------------


def discovery_enabled(ctx: LemonContext) -> bool:
    """False when ``LEMON_MCP_EXTERNAL_DISCOVERY`` turns importing off."""
    return ctx.flag("LEMON_MCP_EXTERNAL_DISCOVERY") is not False


def discovery_home(ctx: LemonContext) -> Path | None:
    """Where user files are read: ``LEMON_MCP_DISCOVERY_HOME``, else the home directory, or
    None (no user file at all) when the runtime is isolated and no discovery home is set, or
    when the home it would be is unusable (:attr:`~lemon_core.context.LemonContext.home_problem`:
    relative, missing or not a folder; a relative home would read the project as home)."""
    configured = ctx.getenv("LEMON_MCP_DISCOVERY_HOME")
    if configured:
        if configured.startswith("~") and ctx.home_problem is not None:
            return None
        return ctx.expand_path(configured)
    return None if ctx.is_isolated or ctx.home_problem is not None else ctx.home


def user_opted_in(ctx: LemonContext, importer: McpImporter) -> bool:
    """Whether ``importer``'s user files may be read (before the discovery-home rule)."""
    value = (ctx.getenv("LEMON_MCP_EXTERNAL_USER_DISCOVERY") or "").strip().lower()
    if value in _ALL:
        return True
    if importer.name.lower() in {part.strip() for part in value.split(",")}:
        return True
    if not isinstance(importer, UserOptIn) or not callable(importer.user_opt_in):
        return False
    try:
        return bool(importer.user_opt_in(ctx))
    except Exception:  # noqa: BLE001 - a third-party importer's bug reads nothing rather than everything
        return False


def _guarded(ctx: LemonContext, importers: list[McpImporter], home: Path | None) -> frozenset[str]:
    homes = {ctx.home} | ({home} if home is not None else set())
    guarded: set[str] = set()
    for importer in importers:
        if not isinstance(importer, UserPaths) or not callable(importer.user_paths):
            continue
        for base in homes:
            try:
                guarded.update(_real(path) for path in importer.user_paths(ctx, base))
            except Exception:  # noqa: BLE001 - a third-party importer's bug must not stop the import
                continue
    return frozenset(guarded)


# -- the host ---------------------------------------------------------------------------------


def _run(importer: McpImporter, request: ImportRequest) -> ImportOutcome:
    try:
        outcome = importer.import_scope(request)
        result = ImportOutcome(outcome.servers, outcome.skipped, outcome.errors)
        kinds = (
            (result.servers, McpServer),
            (result.skipped, SkippedEntry),
            (result.errors, ImportFailure),
        )
        if not all(isinstance(item, kind) for items, kind in kinds for item in items):
            raise TypeError("import_scope returned records of the wrong type")
        return result
    except Exception as exc:  # noqa: BLE001 - reported by type only: the text could quote a secret
        failure = ImportFailure(
            importer.name,
            request.scope,
            "",
            "plugin",
            f"importer {importer.name!r} failed ({type(exc).__name__}); other providers were "
            f"still imported; disable it with LEMON_DISABLE_PLUGINS or report it",
        )
        return ImportOutcome(errors=(failure,))


def import_servers(
    ctx: LemonContext,
    plugins: Plugins | None = None,
    *,
    scopes: tuple[ImportScope, ...] = SCOPES,
) -> ImportOutcome:
    """Import other tools' MCP servers for the requesting directory ``ctx.cwd``.

    Order: provider order; inside a provider all project files before all user files; inside a
    scope the provider's file order; inside a file the entry order. The first valid entry for a
    name claims it (even when disabled); later ones are dropped whole and reported in
    ``skipped`` with the reason :data:`SHADOWED`. Skipped entries claim nothing. Every entry
    must also pass the schema of lemon's own files (:func:`lemon_core.mcp.schema.check_server`),
    else it is skipped as ``invalid_url`` or ``invalid_entry``, its value never shown.

    :param plugins: the loaded plugins (default: :func:`lemon_core.plugins.load_plugins`).
    :param scopes: the scopes to read (``("user",)`` for lemon's global scope: user-level
        servers claim their names among themselves, whatever the project holds).
    """
    if not discovery_enabled(ctx):
        return ImportOutcome()
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx)
    importers = plugins.mcp_importers()
    home = discovery_home(ctx)
    guarded = _guarded(ctx, importers, home)
    claims = _Claims()
    for importer in importers:
        for scope in scopes:
            if scope == "user" and (home is None or not user_opted_in(ctx, importer)):
                continue
            base = home if scope == "user" and home is not None else ctx.home
            request = ImportRequest(ctx, importer.name, scope, base, guarded)
            claims.take(importer.name, scope, _run(importer, request))
    return claims.outcome()


@attrs.frozen
class UnreadUserFile:
    """A user-level file of another tool that exists and was not read: its provider was not
    opted in (``reason`` ``not_opted_in``), or the runtime is isolated and no discovery home
    is set (``isolated``)."""

    provider: str
    file: str
    reason: str


def unread_user_files(ctx: LemonContext, plugins: Plugins | None = None
                      ) -> tuple[UnreadUserFile, ...]:
    """The user-level files of other tools that exist and that the import did not read (what
    ``lemon mcp list --all`` counts, with how to opt in). Nothing when importing is off."""
    if not discovery_enabled(ctx):
        return ()
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx)
    home = discovery_home(ctx)
    base = home if home is not None else (None if ctx.home_problem is not None else ctx.home)
    if base is None:
        return ()
    found: list[UnreadUserFile] = []
    for importer in plugins.mcp_importers():
        if home is not None and user_opted_in(ctx, importer):
            continue
        paths: list[Path] = []
        try:
            if isinstance(importer, UserPaths) and callable(importer.user_paths):
                paths = list(importer.user_paths(ctx, base))
        except Exception:  # noqa: BLE001 - a third-party importer's bug counts nothing
            pass
        for path in paths:
            if Path(path).is_file():
                found.append(UnreadUserFile(importer.name, str(path),
                                            "not_opted_in" if home is not None else "isolated"))
    return tuple(dict.fromkeys(found))  # one file may be named twice by one importer


def opt_in_hint(unread: tuple[UnreadUserFile, ...]) -> str:
    """How to have ``unread`` read: the environment to set."""
    providers = ",".join(dict.fromkeys(item.provider for item in unread))
    hint = f"set LEMON_MCP_EXTERNAL_USER_DISCOVERY={providers} (or 1 for every tool)"
    if any(item.reason == "isolated" for item in unread):
        hint += " and LEMON_MCP_DISCOVERY_HOME=~ (this runtime is isolated by LEMON_AGENT_DIR " \
                "or a skills-folder override)"
    return hint


def _schema_reason(server: McpServer) -> str | None:
    """The skip reason of an imported server that fails the schema of lemon's own files (the
    same checks, never the value): ``invalid_url``, or ``invalid_entry`` for any other field."""
    field = check_server(server)
    if field is None:
        return None
    return "invalid_url" if field == "url" else "invalid_entry"


@attrs.define
class _Claims:
    """The host's tally: the first valid entry for a name claims it."""

    servers: list[McpServer] = attrs.field(factory=list)
    skipped: list[SkippedEntry] = attrs.field(factory=list)
    errors: list[ImportFailure] = attrs.field(factory=list)
    claimed: set[str] = attrs.field(factory=set)

    def take(self, provider: str, scope: str, outcome: ImportOutcome) -> None:
        self.skipped.extend(outcome.skipped)
        self.errors.extend(outcome.errors)
        for server in outcome.servers:
            name = server.name
            reason = (
                "invalid_name" if not valid_name(name)
                else _schema_reason(server) or (SHADOWED if name in self.claimed else None)
            )  # fmt: skip
            if reason is not None:
                file = getattr(server.source, "file", None) or ""
                self.skipped.append(SkippedEntry(_printable(name), provider, scope, file, reason))
                continue
            self.claimed.add(name)  # type: ignore[arg-type]
            self.servers.append(server)

    def outcome(self) -> ImportOutcome:
        return ImportOutcome(self.servers, self.skipped, self.errors)


__all__ = [
    "SCOPES",
    "SHADOWED",
    "UnreadUserFile",
    "discovery_enabled",
    "discovery_home",
    "import_servers",
    "opt_in_hint",
    "unread_user_files",
    "user_opted_in",
]
