"""Reading lemon's own MCP file for the effective set: entry by entry, failing closed.

Writers and ``lemon mcp list`` read a file strictly (:func:`lemon_core.mcp.config.read_file`):
one problem makes the whole file invalid, and nothing is written. The effective set cannot drop
a whole file that way: its ``disabled_servers`` would be dropped too, and a server the user
switched off would come back on. So it reads what it can, and a problem never switches a
server on:

- **An invalid entry** is reported (kind :data:`ENTRY_KIND`) and skipped; the rest of the file
  (its other entries, its lists and its switch) still applies. An invalid entry with a valid
  name *reserves* that name: it claims the name without a server, so another source's server
  of that name never runs in its place (the user may have meant to turn it off, or to point it
  elsewhere). Two entries with one name in one file reserve their name the same way.
- **An unusable file** (unreadable, too large, not a regular file, not JSON, not an object, or
  its ``servers``, ``enabled``, ``enabled_servers`` or ``disabled_servers`` itself invalid)
  could have disabled any server: the effective set of a scope that reads it reports every
  server disabled until it is fixed (see :mod:`lemon_core.mcp.effective`).

Messages name the file, the entry and the field, never a value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError
from lemon_core.mcp.config import (
    LemonScope,
    McpConfigError,
    McpFile,
    file_fields,
    load_json,
    mcp_path,
    parse_file,
    read_bytes,
)
from lemon_core.mcp.names import is_valid_name, show
from lemon_core.mcp.schema import entry_label, parse_entry
from lemon_core.models import McpServer, ServerSource

#: The error kind of one invalid entry (the rest of its file still counts). Every other kind
#: reported for a lemon file means the file is unusable.
ENTRY_KIND = "invalid_entry"


@attrs.frozen
class LenientFile:
    """What the effective set may use of one lemon file.

    ``file`` holds the valid entries, the lists and the switch; it is None when the file is
    unusable (fail closed). ``reserved`` are the names of invalid or ambiguous entries.
    """

    scope: LemonScope
    path: Path
    file: McpFile | None
    reserved: frozenset[str] = frozenset()
    errors: tuple[McpConfigError, ...] = ()
    #: The position in the file's ``servers`` list of each server of ``file.servers``.
    positions: tuple[int, ...] = ()


def read_lenient(ctx: LemonContext, scope: LemonScope) -> LenientFile:
    """Read the ``project`` or ``global`` lemon MCP file for the effective set."""
    path = mcp_path(ctx, scope)
    try:
        content = read_bytes(path)
    except McpConfigError as exc:
        return _unusable(exc, path, scope)
    return parse_lenient(content, path, scope)


def parse_lenient(content: bytes | None, path: Path, scope: LemonScope) -> LenientFile:
    """Parse a lemon MCP file's bytes (None: it does not exist) entry by entry; never raises."""
    if content is None:
        return LenientFile(scope, path, parse_file(None, path, scope))
    try:
        mcp_file, raw = file_fields(load_json(content, str(path)), path, scope)
    except McpConfigError as exc:
        return _unusable(exc, path, scope)
    servers, reserved, errors, positions = _entries(
        raw, str(path), ServerSource("lemon", scope, str(path))
    )
    return LenientFile(
        scope, path, attrs.evolve(mcp_file, servers=servers), reserved, errors, positions
    )


def _unusable(exc: McpConfigError, path: Path, scope: LemonScope) -> LenientFile:
    message = f"{exc}; every MCP server is disabled until this file is fixed"
    return LenientFile(scope, path, None, errors=(McpConfigError(message, exc.kind),))


def _entries(
    raw: list[object], where: str, source: ServerSource
) -> tuple[tuple[McpServer, ...], frozenset[str], tuple[McpConfigError, ...], tuple[int, ...]]:
    """(valid servers, reserved names, errors, the servers' positions) of a ``servers`` list,
    in entry order."""
    parsed: list[tuple[int, McpServer]] = []
    errors: list[McpConfigError] = []
    reserved: set[str] = set()
    positions: dict[str, list[int]] = {}
    for index, entry in enumerate(raw):
        raw_name = entry.get("name") if isinstance(entry, dict) else None
        name = raw_name if isinstance(raw_name, str) and is_valid_name(raw_name) else None
        if name is not None:
            positions.setdefault(name, []).append(index)
        try:
            parsed.append((index, parse_entry(entry, label=entry_label("servers", index, entry),
                                              source=source)))  # fmt: skip
        except ConfigError as exc:
            message = f"{where}: {exc}; the entry is skipped"
            if name is not None:
                reserved.add(name)
                message += f"; no other source's {show(name)} is used until it is fixed"
            errors.append(McpConfigError(message, ENTRY_KIND))
    for name, indexes in positions.items():
        if len(indexes) > 1:
            reserved.add(name)
            *first, last = (f"servers[{i}]" for i in indexes)
            listed = f"{', '.join(first)} and {last} are {'both' if len(first) == 1 else 'all'}"
            errors.append(McpConfigError(
                f"{where}: {listed} named {show(name)}; names must be unique in one file: "
                f"rename or remove one; no server named {show(name)} is used until then",
                ENTRY_KIND,
            ))  # fmt: skip
    kept = [(i, s) for i, s in parsed if s.name is None or s.name not in reserved]
    return (tuple(s for _, s in kept), frozenset(reserved), tuple(errors),
            tuple(i for i, _ in kept))  # fmt: skip


def problems(errors: Any) -> McpConfigError | None:
    """The one error ``lemon mcp list`` and ``list --all`` exit 1 with when lemon's own
    configuration has problems (``errors``: :class:`McpConfigError` or records with
    ``message``), or None. Both commands print what they can first."""
    messages = [str(getattr(e, "message", e)) for e in errors]
    if not messages:
        return None
    more = len(messages) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''}; see the listing)" if more else ""
    return McpConfigError(messages[0] + tail)


__all__ = ["ENTRY_KIND", "LenientFile", "parse_lenient", "problems", "read_lenient"]
