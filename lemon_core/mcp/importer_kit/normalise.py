"""From one provider's raw entry to an :class:`~lemon_core.models.McpServer`.

A provider first translates its own keys into the *canonical fields* below (Gemini ``httpUrl``
becomes ``url`` with ``type: "http"``, Codex seconds become milliseconds, …); :func:`normalise`
then applies the rules every provider shares:

========================  =============================================================
canonical field           rule
========================  =============================================================
``type``                  "stdio", "http" or "sse" when the tool states one; else inferred:
                          a command means stdio, a URL Streamable HTTP
``command`` / ``url``     exactly one of them, a non-empty string
``args``                  list of strings
``env`` / ``headers``     object of string values
``cwd``                   string
``timeout_ms``,           milliseconds, already converted by the provider (see
``ready_timeout_ms``      :func:`to_ms`); 0 means "no per-server value"
``allow_tools`` /         lists of exact tool names, kept verbatim
``block_tools``
``enabled`` /             bools (default: enabled); ``"enabled": false`` or
``disabled``              ``"disabled": true`` imports the entry disabled
========================  =============================================================

Fields of the other transport are dropped (a stdio entry keeps no URL or headers). Auth blocks
never reach the canonical fields. A provider copies values as they are and leaves their checks
to :func:`normalise`, so that an entry with both a command and a URL is reported as such even
when another of its fields is malformed (a provider that must read a field to translate it
calls :func:`check_presence` first). Anything wrong raises :class:`EntrySkipped` with a reason of
:data:`SKIP_REASONS`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from lemon_core.mcp.names import is_valid_name
from lemon_core.mcp.schema import TRANSPORTS, check_server
from lemon_core.models import McpServer, ServerSource

#: Why an entry was skipped (a skipped entry never claims its name).
SKIP_REASONS: dict[str, str] = {
    "invalid_name": "the name is not 1-64 ASCII letters, digits, '_', '.', '-' starting with a "
    "letter or digit",
    "command_and_url": "the entry has both a command and a URL",
    "no_command_or_url": "the entry has neither a command nor a URL",
    "unsupported_type": "the entry's transport type is not one lemon supports",
    "type_mismatch": "the entry's type needs a command (stdio) or a URL (http, sse) it lacks",
    "invalid_entry": "a field has the wrong type or an unusable value",
    "invalid_url": "the URL is not an http:// or https:// URL with a host",
    "substituted_name": "the name came out of an {env:} or {file:} substitution (never shown)",
    "substituted_field": "the type came out of an {env:} or {file:} substitution (never shown)",
}

_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")

#: ``expand(value) -> value``: the provider's variable expansion, or None for none.
Expander = Callable[[str], str]


class EntrySkipped(Exception):
    """An entry cannot be imported; ``reason`` is a key of :data:`SKIP_REASONS`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: True for a valid lemon server name: the one rule of :func:`lemon_core.mcp.names.is_valid_name`.
valid_name = is_valid_name


# -- field checks (providers use them too) -------------------------------------------------


def as_str(value: Any, *, empty_ok: bool = True) -> str:
    """``value`` if it is a usable string (no NUL, no lone surrogate), else skip the entry."""
    if not isinstance(value, str) or _BAD_CHARS.search(value) or (not empty_ok and not value):
        raise EntrySkipped("invalid_entry")
    return value


def as_str_list(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise EntrySkipped("invalid_entry")
    return [as_str(item) for item in value]


def as_str_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise EntrySkipped("invalid_entry")
    return {as_str(key, empty_ok=False): as_str(item) for key, item in value.items()}


def as_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise EntrySkipped("invalid_entry")
    return value


def to_ms(value: Any, per_unit: float = 1.0) -> int | None:
    """A non-negative finite number of units as whole milliseconds; 0 gives None.

    ``to_ms(1.5, 1000)`` is 1500 (seconds); a positive value never rounds down to 0.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EntrySkipped("invalid_entry")
    try:  # an integer too large for a float (JSON allows thousands of digits) overflows
        if value < 0 or not math.isfinite(value):
            raise EntrySkipped("invalid_entry")
        if value == 0:
            return None
        scaled = value * per_unit
    except OverflowError:
        raise EntrySkipped("invalid_entry") from None
    if not math.isfinite(scaled):
        raise EntrySkipped("invalid_entry")
    return max(1, round(scaled))


# -- the normaliser -----------------------------------------------------------------------------


def check_presence(has_command: bool, has_url: bool) -> None:
    """Skip an entry with both a command and a URL, or with neither."""
    if has_command and has_url:
        raise EntrySkipped("command_and_url")
    if not has_command and not has_url:
        raise EntrySkipped("no_command_or_url")


def _transport(fields: Mapping[str, Any], has_command: bool) -> str:
    explicit = fields.get("type")
    if explicit is None:
        return "stdio" if has_command else "http"
    if not isinstance(explicit, str):
        raise EntrySkipped("invalid_entry")
    if explicit not in TRANSPORTS:
        raise EntrySkipped("unsupported_type")
    if (explicit == "stdio") != has_command:
        raise EntrySkipped("type_mismatch")
    return explicit


def _optional(fields: Mapping[str, Any], key: str, check: Callable[[Any], Any]) -> Any:
    value = fields.get(key)
    return None if value is None else check(value)


def normalise(
    name: str,
    fields: Mapping[str, Any],
    source: ServerSource,
    expand: Expander | None = None,
) -> McpServer:
    """Validate a provider's canonical ``fields`` and build the server.

    Checks run in this order, so the reported reason is the most telling one: the name, then
    command/URL presence, then the transport type, then every field's type, then (after
    expansion) the schema of lemon's own files (:func:`lemon_core.mcp.schema.check_server`: an
    http(s) URL with a host, header names and one-line values, environment names…).

    :raises EntrySkipped: with the reason the entry cannot be imported.
    """
    if not valid_name(name):
        raise EntrySkipped("invalid_name")
    has_command = fields.get("command") is not None
    check_presence(has_command, fields.get("url") is not None)
    transport = _transport(fields, has_command)

    command = _optional(fields, "command", lambda v: as_str(v, empty_ok=False))
    url = _optional(fields, "url", lambda v: as_str(v, empty_ok=False))
    args = _optional(fields, "args", as_str_list) or []
    env = _optional(fields, "env", as_str_map) or {}
    headers = _optional(fields, "headers", as_str_map) or {}
    cwd = _optional(fields, "cwd", lambda v: as_str(v, empty_ok=False))
    timeout_ms = _optional(fields, "timeout_ms", lambda v: to_ms(v))
    ready_timeout_ms = _optional(fields, "ready_timeout_ms", lambda v: to_ms(v))
    allow_tools = _optional(fields, "allow_tools", as_str_list)
    block_tools = _optional(fields, "block_tools", as_str_list)
    enabled = _optional(fields, "enabled", as_bool)
    disabled = _optional(fields, "disabled", as_bool)

    ex = expand or (lambda value: value)
    stdio = transport == "stdio"
    target = ex(command if stdio else url)
    if not target:  # e.g. "${CMD:-}": nothing to run or contact
        raise EntrySkipped("invalid_entry")
    server = McpServer(
        name=name,
        transport=transport,  # type: ignore[arg-type]
        source=source,
        command=target if stdio else None,
        args=tuple(ex(arg) for arg in args) if stdio else (),
        env={key: ex(value) for key, value in env.items()} if stdio else {},
        cwd=ex(cwd) if stdio and cwd is not None else None,
        url=None if stdio else target,
        headers={} if stdio else {key: ex(value) for key, value in headers.items()},
        timeout_ms=timeout_ms,
        ready_timeout_ms=ready_timeout_ms,
        allow_tools=None if allow_tools is None else tuple(allow_tools),
        block_tools=None if block_tools is None else tuple(block_tools),
        enabled=enabled is not False and not disabled,
    )
    field = check_server(server)  # the schema of lemon's own files, on the expanded values
    if field is not None:
        raise EntrySkipped("invalid_url" if field == "url" else "invalid_entry")
    return server


__all__ = [
    "SKIP_REASONS",
    "TRANSPORTS",
    "EntrySkipped",
    "Expander",
    "as_bool",
    "as_str",
    "as_str_list",
    "as_str_map",
    "check_presence",
    "normalise",
    "to_ms",
    "valid_name",
]
