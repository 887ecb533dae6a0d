"""Checking server entries built in code, by the rules of lemon's own ``mcp.json`` files.

:func:`validate_servers` is the spec's ``validate_mcp_servers`` for embedders that build a
configuration in Python (:class:`lemon_core.mcp.appconfig.McpAppConfig`): each entry is checked
by :func:`lemon_core.mcp.schema.parse_entry`, the one rule set lemon's files and
``LEMON_MCP_SERVERS`` use, and names must be unique in one list, as in one file. Each problem
names the entry (its position, and its name when that is a valid one) and the field at fault;
it never repeats a configured value (environment values, headers, URLs and arguments may hold
credentials).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from lemon_core.errors import ConfigError
from lemon_core.mcp.names import show
from lemon_core.models import McpServer, ServerSource

#: The source of the servers an embedder hands over in code (a scope of the user's own).
APP_SOURCE = ServerSource("app", "app", None)


@attrs.frozen
class ServerProblem:
    """Why entry ``index`` (named ``name``, when it has a valid one) cannot be used: ``field``
    is the field at fault (``"entry"``: the entry as a whole, ``"name"`` for a duplicate)."""

    index: int
    name: str | None
    field: str
    message: str

    def to_json(self) -> dict[str, object]:
        return {"index": self.index, "name": self.name, "field": self.field,
                "message": self.message}


def validate_servers(entries: Iterable[Any], *, prefix: str = "entries",
                     source: ServerSource = APP_SOURCE,
                     ) -> tuple[tuple[McpServer, ...], tuple[ServerProblem, ...]]:
    """``(valid, errors)`` for ``entries``: each one a dict shaped like an entry of lemon's
    ``mcp.json`` (``{"name": "git", "type": "stdio", "command": "uvx", ...}``) or an
    :class:`~lemon_core.models.McpServer`. ``valid`` holds the usable entries, normalised, in
    order (from ``source`` unless an ``McpServer`` brings its own); ``errors`` one
    :class:`ServerProblem` per problem. Entries that share a name are all left out (as in a
    file: no server of that name is used until it is fixed)."""
    from lemon_core.mcp.schema import EntryError, entry_label, entry_of, parse_entry

    parsed: list[tuple[int, McpServer]] = []
    problems: list[tuple[int, str | None, str, str]] = []
    positions: dict[str, list[int]] = {}
    for index, raw in enumerate(entries):
        own = raw.source if isinstance(raw, McpServer) else source
        data = entry_of(raw) if isinstance(raw, McpServer) else raw
        label = entry_label(prefix, index, data)
        name = _valid_name(data)
        try:
            server = parse_entry(data, label=label, source=own)
        except EntryError as exc:
            problems.append((index, name, exc.field or "entry", str(exc)))
            continue
        except ConfigError as exc:
            problems.append((index, name, "entry", str(exc)))
            continue
        if isinstance(raw, McpServer) and raw.extra:
            server = attrs.evolve(server, extra=raw.extra)
        parsed.append((index, server))
        if server.name is not None:
            positions.setdefault(server.name, []).append(index)
    clashing = {name: at for name, at in positions.items() if len(at) > 1}
    for name, at in clashing.items():
        *first, last = (f"{prefix}[{i}]" for i in at)
        problems.extend((i, name, "name", (
            f"{', '.join(first)} and {last} are {'both' if len(first) == 1 else 'all'} named "
            f"{show(name)}; names must be unique in one list: rename or remove one; none of "
            "them is used until then")) for i in at)
    valid = tuple(s for _, s in parsed if s.name not in clashing)
    return valid, tuple(ServerProblem(*p) for p in sorted(problems, key=lambda p: p[0]))


def _valid_name(data: object) -> str | None:
    from lemon_core.mcp.names import is_valid_name

    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and is_valid_name(name) else None


__all__ = ["APP_SOURCE", "ServerProblem", "validate_servers"]
