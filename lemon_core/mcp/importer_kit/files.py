"""A base class for importers that read a fixed list of files (every built-in one).

A subclass names its files and overrides only what differs from the common ``mcpServers``
JSON shape: :meth:`FileImporter.parse` (text → data), :meth:`FileImporter.entries` (data →
``(name, raw entry)`` pairs) and :meth:`FileImporter.translate` (raw entry → the canonical
fields of :mod:`lemon_core.mcp.importer_kit.normalise`). Third-party importers may use it too.

Files come in *chains*: a chain ``(a, b)`` reads ``b`` only when ``a`` yielded no server
(Claude Code's "``.claude/.mcp.json``, else ``.claude/mcp.json``"); most chains hold one file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from lemon_core.fsio.read import FileProblem
from lemon_core.mcp.importer_kit import jsonc
from lemon_core.mcp.importer_kit.expand import Substituted, expand_vars, plain
from lemon_core.mcp.importer_kit.normalise import (
    EntrySkipped,
    Expander,
    normalise,
    valid_name,
)
from lemon_core.records import ImportOutcome, ImportRequest, ScopeCollector

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

Chain = tuple[str, ...]

#: An entry's own on/off keys, copied as they are (``normalise`` checks them).
STATE_KEYS = ("enabled", "disabled")
#: Raw keys whose value is printed without ``--reveal`` (as the transport), besides the name.
SHOWN_KEYS = ("type",)
#: Keys every ``mcpServers``-style tool shares, copied as they are into the canonical fields.
COMMON_KEYS = ("type", "command", "args", "env", "cwd", "url", "headers", *STATE_KEYS)


def disable_names(
    pairs: Iterable[tuple[str, Any]], off: Callable[[str], bool]
) -> list[tuple[str, Any]]:
    """``pairs`` with every entry whose name ``off`` accepts imported disabled (a tool's own
    per-file denylist: omp ``disabledServers``, Gemini ``mcp.excluded``)."""
    return [
        (name, {**raw, "enabled": False} if isinstance(raw, Mapping) and off(name) else raw)
        for name, raw in pairs
    ]


def server_map(doc: Any, *keys: str) -> list[tuple[str, Any]]:
    """The ``(name, entry)`` pairs of ``doc[keys[0]][keys[1]]…``; [] when a key is absent.

    :raises FileProblem: (kind "schema") when ``doc`` or the map is not a JSON object.
    """
    if not isinstance(doc, Mapping):
        raise FileProblem("schema", "the top level is not an object")
    node: Any = doc
    for key in keys[:-1]:
        node = node.get(key)
        if not isinstance(node, Mapping):
            return []  # an outer key that is absent or not an object holds no servers
    servers = node.get(keys[-1])
    if servers is None:
        return []
    if not isinstance(servers, Mapping):
        raise FileProblem("schema", f"{'.'.join(keys)} is not an object")
    return list(servers.items())


class FileImporter:
    """Reads ``project_files`` (relative to the requesting directory) and ``user_files``
    (relative to the discovery home); ``expands_vars`` turns on ``${VAR}`` expansion."""

    name: ClassVar[str] = ""
    order: ClassVar[int] = 1000
    project_files: ClassVar[Sequence[Chain]] = ()
    user_files: ClassVar[Sequence[Chain]] = ()
    expands_vars: ClassVar[bool] = True

    # -- files --------------------------------------------------------------------------------

    def user_opt_in(self, ctx: LemonContext) -> bool:
        """A provider's own reason to read its user files without the user's opt-in."""
        return False

    def user_chains(self, ctx: LemonContext, home: Path) -> list[tuple[Path, ...]]:
        return [tuple(home / rel for rel in chain) for chain in self.user_files]

    def user_paths(self, ctx: LemonContext, home: Path) -> list[Path]:
        """Every user-level file of this tool under ``home`` (kept off project reads)."""
        return [path for chain in self.user_chains(ctx, home) for path in chain]

    def chains(self, request: ImportRequest) -> list[tuple[Path, ...]]:
        if request.scope == "user":
            return self.user_chains(request.ctx, request.home)
        return [tuple(request.cwd / rel for rel in chain) for chain in self.project_files]

    # -- per file -----------------------------------------------------------------------------

    def max_bytes(self, path: Path, request: ImportRequest) -> int:
        """The largest ``path`` this importer reads (default: the host's cap, 4 MiB). A larger
        file is reported "too large" without being read (its size is checked first)."""
        return request.max_bytes

    def parse(self, text: str, path: Path, request: ImportRequest) -> Any:
        """The file's data (strict JSON by default). Raises JsoncError or FileProblem."""
        return jsonc.loads_json(text)

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        """The file's ``(name, raw entry)`` pairs, in file order."""
        return server_map(doc, "mcpServers")

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        """The canonical fields of one raw entry (auth blocks are simply not copied)."""
        return {key: raw.get(key) for key in COMMON_KEYS}

    def expander(self, request: ImportRequest) -> Expander | None:
        if not self.expands_vars:
            return None
        env = request.ctx.env
        return lambda value: expand_vars(value, env)

    # -- the protocol ---------------------------------------------------------------------------

    def import_scope(self, request: ImportRequest) -> ImportOutcome:
        """Every chain of ``request.scope`` in order; see the module docstring."""
        collector = ScopeCollector(request)
        expand = self.expander(request)
        for chain in self.chains(request):
            for path in chain:
                if self._import_file(path, request, collector, expand):
                    break
        return collector.outcome()

    def _import_file(
        self, path: Path, request: ImportRequest, collector: ScopeCollector, expand: Expander | None
    ) -> int:
        """Import one file; the number of servers it yielded (disabled ones included)."""
        try:
            text = request.read_text(path, self.max_bytes(path, request))
            if text is None:
                return 0
            items = list(self.entries(self.parse(text, path, request), path, request))
        except FileProblem as problem:
            collector.fail(path, problem.kind, problem.message)
            return 0
        except jsonc.JsoncError as exc:
            collector.fail(path, "parse", f"not valid JSON: {exc}")
            return 0
        count = 0
        source = request.source(path)
        for index, (name, raw) in enumerate(items):
            if isinstance(name, Substituted):  # never shown, not even escaped
                collector.skip(None, path, "substituted_name", index=index)
                continue
            try:
                if not valid_name(name):
                    raise EntrySkipped("invalid_name")
                if not isinstance(raw, Mapping):
                    raise EntrySkipped("invalid_entry")
                if any(isinstance(raw.get(key), Substituted) for key in SHOWN_KEYS):
                    raise EntrySkipped("substituted_field")
                fields = self.translate(name, plain(raw), path, request)
                server = normalise(name, fields, source, expand)
            except EntrySkipped as skip:
                shown = name if isinstance(name, str) else None
                collector.skip(shown, path, skip.reason, index=index)
                continue
            collector.add(server)
            count += 1
        return count


__all__ = ["COMMON_KEYS", "SHOWN_KEYS", "STATE_KEYS", "Chain", "FileImporter", "disable_names", "server_map"]
