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

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from lemon_core.mcp import reading
from lemon_core.mcp.normalise import valid_name
from lemon_core.models import McpServer, ServerSource

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugins import Plugins
    from lemon_core.protocols import McpImporter

ImportScope = Literal["project", "user"]
SCOPES: tuple[ImportScope, ...] = ("project", "user")
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_ALL = frozenset({"1", "true", "yes", "on", "all", "*"})
#: The reason reported for an entry whose name an earlier entry (or source) already claimed.
SHADOWED = "shadowed"


@attrs.frozen
class SkippedEntry:
    """An entry that was not imported and claims no name; ``reason`` is a key of
    :data:`lemon_core.mcp.normalise.SKIP_REASONS`, or :data:`SHADOWED` (an earlier entry
    claimed the name)."""

    name: str | None
    provider: str
    scope: str
    file: str
    reason: str


@attrs.frozen
class ImportFailure:
    """A file that contributed nothing: ``kind`` is "read", "parse", "schema" or "plugin".
    ``message`` never holds file content, environment or header values."""

    provider: str
    scope: str
    file: str
    kind: str
    message: str


@attrs.frozen
class ImportOutcome:
    """Imported servers (claim order, one per name), skipped entries and failed files."""

    servers: tuple[McpServer, ...] = attrs.field(default=(), converter=tuple)
    skipped: tuple[SkippedEntry, ...] = attrs.field(default=(), converter=tuple)
    errors: tuple[ImportFailure, ...] = attrs.field(default=(), converter=tuple)


def _real(path: Path | str) -> str:
    return os.path.realpath(path)


@attrs.frozen
class ImportRequest:
    """What the host asks one importer for: the entries of ``scope``'s files.

    ``home`` is the directory user files live under (the discovery home) and what ``~/`` means
    in the files. Project-scope reads through :meth:`read_text` never touch a path in
    ``guarded`` (the user files of every provider), so launching lemon from the home directory,
    or from inside another tool's config directory, never turns user files into project files.
    """

    ctx: LemonContext
    provider: str
    scope: ImportScope
    home: Path
    guarded: frozenset[str] = frozenset()
    max_bytes: int = reading.MAX_FILE_BYTES

    @property
    def cwd(self) -> Path:
        """The requesting directory: the only project directory searched (no walk up)."""
        return self.ctx.cwd

    def read_text(self, path: Path, max_bytes: int | None = None) -> str | None:
        """The file's text (at most ``max_bytes``, default :attr:`max_bytes`); None when it is
        absent or guarded. Raises :class:`~lemon_core.mcp.reading.FileProblem`."""
        if self.scope == "project" and _real(path) in self.guarded:
            return None
        return reading.read_text(path, self.max_bytes if max_bytes is None else max_bytes)

    def source(self, path: Path) -> ServerSource:
        return ServerSource(self.provider, self.scope, str(path))


def _printable(name: object, limit: int = 100) -> str | None:
    """A name safe to show: control characters replaced, cut at ``limit`` characters."""
    if not isinstance(name, str):
        return None
    name = _UNPRINTABLE.sub("\ufffd", name)
    return name if len(name) <= limit else name[:limit] + "\u2026"


@attrs.define
class ScopeCollector:
    """A mutable helper importers use to build their :class:`ImportOutcome`."""

    request: ImportRequest
    servers: list[McpServer] = attrs.field(factory=list)
    skipped: list[SkippedEntry] = attrs.field(factory=list)
    errors: list[ImportFailure] = attrs.field(factory=list)

    def add(self, server: McpServer) -> None:
        self.servers.append(server)

    def skip(self, name: str | None, path: Path, reason: str) -> None:
        req = self.request
        self.skipped.append(
            SkippedEntry(_printable(name), req.provider, req.scope, str(path), reason)
        )

    def fail(self, path: Path, kind: str, message: str) -> None:
        req = self.request
        self.errors.append(ImportFailure(req.provider, req.scope, str(path), kind, message))

    def outcome(self) -> ImportOutcome:
        return ImportOutcome(self.servers, self.skipped, self.errors)


# -- settings ---------------------------------------------------------------------------------


def discovery_enabled(ctx: LemonContext) -> bool:
    """False when ``LEMON_MCP_EXTERNAL_DISCOVERY`` turns importing off."""
    return ctx.flag("LEMON_MCP_EXTERNAL_DISCOVERY") is not False


def discovery_home(ctx: LemonContext) -> Path | None:
    """Where user files are read: ``LEMON_MCP_DISCOVERY_HOME``, else the home directory, or
    None (no user file at all) when the runtime is isolated and no discovery home is set."""
    configured = ctx.getenv("LEMON_MCP_DISCOVERY_HOME")
    if configured:
        return ctx.expand_path(configured)
    return None if ctx.is_isolated else ctx.home


def user_opted_in(ctx: LemonContext, importer: McpImporter) -> bool:
    """Whether ``importer``'s user files may be read (before the discovery-home rule)."""
    value = (ctx.getenv("LEMON_MCP_EXTERNAL_USER_DISCOVERY") or "").strip().lower()
    if value in _ALL:
        return True
    if importer.name.lower() in {part.strip() for part in value.split(",")}:
        return True
    own_rule = getattr(importer, "user_opt_in", None)
    try:
        return bool(own_rule(ctx)) if callable(own_rule) else False
    except Exception:  # a third-party importer's bug reads nothing rather than everything
        return False


def _guarded(ctx: LemonContext, importers: list[McpImporter], home: Path | None) -> frozenset[str]:
    homes = {ctx.home} | ({home} if home is not None else set())
    guarded: set[str] = set()
    for importer in importers:
        user_paths = getattr(importer, "user_paths", None)
        if not callable(user_paths):
            continue
        for base in homes:
            try:
                guarded.update(_real(path) for path in user_paths(ctx, base))
            except Exception:  # a third-party importer's bug must not stop the import
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
    except Exception as exc:  # reported by type only: the text could quote a secret
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
    ``skipped`` with the reason :data:`SHADOWED`. Skipped entries claim nothing.

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
                else SHADOWED if name in self.claimed else None
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
    "ImportFailure",
    "ImportOutcome",
    "ImportRequest",
    "ImportScope",
    "ScopeCollector",
    "SkippedEntry",
    "discovery_enabled",
    "discovery_home",
    "import_servers",
    "user_opted_in",
]
