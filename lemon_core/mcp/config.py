"""lemon's own MCP configuration: the global and project ``mcp.json`` and ``LEMON_MCP_SERVERS``.

File shape (unknown top-level fields are kept by every writer)::

    {"enabled": true,
     "servers": [{"name": "git", "type": "stdio", "command": "uvx", ...}, {...unnamed...}],
     "enabled_servers": ["github"], "disabled_servers": ["filesystem"]}

Reading is strict: a file that is not JSON, has the wrong shape, an invalid entry or two entries
with one name raises :class:`McpConfigError` naming the file (and the entry and field), never
quoting a value. Files over :data:`MAX_CONFIG_BYTES` are refused unread. (The effective set reads
entry by entry instead, failing closed: see :mod:`lemon_core.mcp.lenient`.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs

from lemon_core import jsondata
from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError, UsageError
from lemon_core.fsio import read as reading
from lemon_core.jsondata import JsonProblem
from lemon_core.mcp.names import show
from lemon_core.mcp.schema import entry_label, parse_entry
from lemon_core.models import McpServer, ServerSource

LemonScope = Literal["project", "global"]
SCOPES: tuple[LemonScope, ...] = ("project", "global")
FILE_NAME = "mcp.json"
ENV_VAR = "LEMON_MCP_SERVERS"
#: lemon refuses to read an MCP file (or ``LEMON_MCP_SERVERS``) larger than this.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
DEFAULT_LOCK_TIMEOUT = 10.0


class McpConfigError(ConfigError):
    """A lemon MCP file or ``LEMON_MCP_SERVERS`` is unusable; ``kind`` says how.

    Kinds: ``unreadable``, ``too_large``, ``invalid_json``, ``invalid``.
    """

    def __init__(self, message: str, kind: str = "invalid") -> None:
        super().__init__(message)
        self.kind = kind


def mcp_path(ctx: LemonContext, scope: str) -> Path:
    """``<cwd>/.lemon/mcp.json`` for ``project``, ``<agent dir>/mcp.json`` for ``global``."""
    if scope == "project":
        return ctx.project_lemon_dir / FILE_NAME
    if scope == "global":
        return ctx.agent_dir / FILE_NAME
    raise UsageError(f"unknown scope {show(scope)}: use project or global")


def lock_timeout(ctx: LemonContext, timeout: float | None = None) -> float:
    """``timeout``, else ``$LEMON_LOCK_TIMEOUT`` seconds, else 10 seconds."""
    if timeout is not None:
        return timeout
    try:
        return max(0.0, float(ctx.getenv("LEMON_LOCK_TIMEOUT") or DEFAULT_LOCK_TIMEOUT))
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT


def _too_large(where: str) -> McpConfigError:
    return McpConfigError(
        f"{where} is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB; lemon does not read it",
        "too_large",
    )


def load_json(content: bytes, where: str) -> Any:
    """Parse ``content`` as strict JSON (no duplicate keys, NaN or Infinity); errors name
    ``where`` and the position, never the content."""
    if len(content) > MAX_CONFIG_BYTES:
        raise _too_large(where)
    try:
        return jsondata.loads(content, max_depth=jsondata.PYTHON_DEPTH,
                              max_int_digits=jsondata.PYTHON_INT_DIGITS)
    except JsonProblem as problem:
        raise McpConfigError(f"{where}: invalid JSON{_json_reason(problem)}",
                             "invalid_json") from None
    except reading.FileProblem:  # not UTF-8
        raise McpConfigError(f"{where} is not UTF-8 text", "invalid_json") from None


def _json_reason(problem: JsonProblem) -> str:
    if problem.line is not None:
        return f" at line {problem.line} column {problem.column}: {problem.reason}"
    if problem.key is not None:
        return f": key {show(problem.key)} appears twice in one object"
    if problem.code == "too_deep":
        return ": nested too deeply"
    return ": a number or constant is out of range"


@attrs.frozen
class McpFile:
    """One parsed lemon MCP file. ``data`` is the raw JSON object a writer edits."""

    path: Path
    scope: LemonScope
    exists: bool
    data: dict[str, Any] = attrs.field(eq=False, repr=False)
    servers: tuple[McpServer, ...] = ()
    #: The top-level ``"enabled"`` switch, None when the file does not set it.
    enabled: bool | None = None
    enabled_servers: tuple[str, ...] = ()
    disabled_servers: tuple[str, ...] = ()

    def index_of(self, name: str) -> int | None:
        """The position in ``servers`` of the entry named exactly ``name``."""
        for index, server in enumerate(self.servers):
            if server.name == name:
                return index
        return None

    def state_for(self, name: str) -> bool | None:
        """This file's enable/disable state for ``name``: the denylist wins; None if unlisted."""
        if name in self.disabled_servers:
            return False
        if name in self.enabled_servers:
            return True
        return None


def _names(data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}: {show(key)} must be a list of server names")
    return tuple(value)


def parse_servers(
    raw: object, *, where: str, prefix: str, source: ServerSource
) -> tuple[McpServer, ...]:
    """Validate a list of entries; names must be unique. Errors start with ``where``."""
    if not isinstance(raw, list):
        what = show(prefix) if prefix == "servers" else "the value"
        raise McpConfigError(f"{where}: {what} must be a list of server entries")
    servers: list[McpServer] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(raw):
        try:
            server = parse_entry(entry, label=entry_label(prefix, index, entry), source=source)
        except ConfigError as exc:
            raise McpConfigError(f"{where}: {exc}") from None
        if server.name is not None:
            if server.name in seen:
                raise McpConfigError(
                    f"{where}: {prefix}[{seen[server.name]}] and {prefix}[{index}] are both named "
                    f"{show(server.name)}; names must be unique in one file: rename or remove one"
                )
            seen[server.name] = index
        servers.append(server)
    return tuple(servers)


def file_fields(data: object, path: Path, scope: LemonScope) -> tuple[McpFile, list[Any]]:
    """Check a parsed file's top level: an object whose ``enabled`` switch and
    ``enabled_servers`` / ``disabled_servers`` lists are valid and whose ``servers`` is a list.

    :returns: the file without its servers, and the raw ``servers`` list (entries unchecked).
    :raises McpConfigError: (kind ``invalid``) naming the file and the field.
    """
    where = str(path)
    if not isinstance(data, dict):
        raise McpConfigError(f'{where}: must hold a JSON object with a "servers" list')
    enabled = data.get("enabled")
    if enabled is not None and not isinstance(enabled, bool):
        raise McpConfigError(f'{where}: "enabled" must be true or false')
    raw = data.get("servers", [])
    if not isinstance(raw, list):
        raise McpConfigError(f'{where}: "servers" must be a list of server entries')
    mcp_file = McpFile(
        path=path,
        scope=scope,
        exists=True,
        data=data,
        enabled=enabled,
        enabled_servers=_names(data, "enabled_servers", where),
        disabled_servers=_names(data, "disabled_servers", where),
    )
    return mcp_file, raw


def parse_file(content: bytes | None, path: Path, scope: LemonScope) -> McpFile:
    """Parse the bytes of a lemon MCP file (None: the file does not exist), strictly: any
    problem, in any entry, makes the whole file invalid."""
    if content is None:
        return McpFile(path=path, scope=scope, exists=False, data={})
    mcp_file, raw = file_fields(load_json(content, str(path)), path, scope)
    source = ServerSource("lemon", scope, str(path))
    servers = parse_servers(raw, where=str(path), prefix="servers", source=source)
    return attrs.evolve(mcp_file, servers=servers)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes (None when missing), refusing oversized files, and anything that is not
    a regular file (a FIFO would block), unread."""
    try:
        return reading.read_bytes(path, MAX_CONFIG_BYTES)
    except reading.TooLarge:
        raise _too_large(str(path)) from None
    except reading.FileProblem as problem:
        raise McpConfigError(f"{path}: {problem.message}", "unreadable") from None


def read_file(ctx: LemonContext, scope: LemonScope) -> McpFile:
    """Read and validate the ``project`` or ``global`` lemon MCP file."""
    path = mcp_path(ctx, scope)
    return parse_file(read_bytes(path), path, scope)


def env_servers(ctx: LemonContext) -> tuple[McpServer, ...]:
    """The entries of ``LEMON_MCP_SERVERS`` (a JSON array); empty when it is unset."""
    value = ctx.getenv(ENV_VAR)
    if value is None or not value.strip():
        return ()
    data = load_json(value.encode("utf-8", "surrogateescape"), ENV_VAR)
    source = ServerSource("env", "env", None)
    return parse_servers(data, where=ENV_VAR, prefix="entry", source=source)


__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "ENV_VAR",
    "FILE_NAME",
    "MAX_CONFIG_BYTES",
    "SCOPES",
    "LemonScope",
    "McpConfigError",
    "McpFile",
    "env_servers",
    "file_fields",
    "load_json",
    "lock_timeout",
    "mcp_path",
    "parse_file",
    "parse_servers",
    "read_bytes",
    "read_file",
]
