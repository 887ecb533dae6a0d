"""The records MCP importers exchange with the host: the request, and what came of it.

These belong to the plugin contract (:class:`~lemon_core.protocols.McpImporter` takes an
:class:`ImportRequest` and returns an :class:`ImportOutcome`); the host that runs importers is
:mod:`lemon_core.mcp.importing`. Nothing here imports a service.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from lemon_core.fsio import read as reading
from lemon_core.models import McpServer, ServerSource
from lemon_core.text import escape

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

ImportScope = Literal["project", "user"]


def _tuple(value: Iterable[object]) -> tuple[object, ...]:
    """``tuple(value)`` (a function: attrs reading a builtin's signature costs a tokenizer
    start-up)."""
    return tuple(value)


@attrs.frozen
class SkippedEntry:
    """An entry that was not imported and claims no name; ``reason`` is a key of
    :data:`lemon_core.mcp.importer_kit.normalise.SKIP_REASONS`, or :data:`SHADOWED` (an earlier entry
    claimed the name). ``name`` is shown escaped (:func:`lemon_core.text.escape`), and is None
    when it must not be shown at all (``substituted_name``); ``index`` is the entry's position
    in its file's server map, when known."""

    name: str | None
    provider: str
    scope: str
    file: str
    reason: str
    index: int | None = None


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

    servers: tuple[McpServer, ...] = attrs.field(default=(), converter=_tuple)
    skipped: tuple[SkippedEntry, ...] = attrs.field(default=(), converter=_tuple)
    errors: tuple[ImportFailure, ...] = attrs.field(default=(), converter=_tuple)


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
        absent or guarded. Raises :class:`~lemon_core.fsio.read.FileProblem`."""
        if self.scope == "project" and _real(path) in self.guarded:
            return None
        return reading.read_text(path, self.max_bytes if max_bytes is None else max_bytes)

    def source(self, path: Path) -> ServerSource:
        return ServerSource(self.provider, self.scope, str(path))


def _printable(name: object, limit: int = 100) -> str | None:
    """A name safe to show: cut at ``limit`` characters, then :func:`lemon_core.text.escape`d
    (the one way lemon shows untrusted text)."""
    if not isinstance(name, str):
        return None
    return escape(name) if len(name) <= limit else escape(name[:limit]) + "\u2026"


@attrs.define
class ScopeCollector:
    """A mutable helper importers use to build their :class:`ImportOutcome`."""

    request: ImportRequest
    servers: list[McpServer] = attrs.field(factory=list)
    skipped: list[SkippedEntry] = attrs.field(factory=list)
    errors: list[ImportFailure] = attrs.field(factory=list)

    def add(self, server: McpServer) -> None:
        self.servers.append(server)

    def skip(self, name: str | None, path: Path, reason: str, index: int | None = None) -> None:
        req = self.request
        self.skipped.append(
            SkippedEntry(_printable(name), req.provider, req.scope, str(path), reason, index)
        )

    def fail(self, path: Path, kind: str, message: str) -> None:
        req = self.request
        self.errors.append(ImportFailure(req.provider, req.scope, str(path), kind, message))

    def outcome(self) -> ImportOutcome:
        return ImportOutcome(self.servers, self.skipped, self.errors)
