"""What ``lemon mcp add`` asks for (:class:`ServerSpec`) and how it becomes a file entry.

:func:`build_entry` makes the JSON object written for a new server, or the replacement of an
existing one: the replacement keeps the old entry's unknown fields, its position and, for the
same transport, its environment and headers (supplied keys are merged over them); a transport
change drops every field of the old transport. Tool approvals always merge. ``approval`` is
written as ``"always"`` unless the spec says ``"never"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import attrs

from lemon_core.errors import UsageError
from lemon_core.mcp.names import check_name
from lemon_core.mcp.schema import (
    APPROVALS,
    SPECIFIC_FIELDS,
    TRANSPORTS,
    is_env_key,
    is_header_name,
    is_header_value,
    is_http_url,
    normalise_keys,
)
from lemon_core.models import Transport

Approval = Literal["always", "never"]


def _map(value: Mapping[str, str] | None) -> Mapping[str, str]:
    return dict(value or {})


@attrs.frozen
class ServerSpec:
    """A server to add: ``command`` for stdio, ``url`` for http/sse; ``args`` is an argv."""

    name: str
    transport: Transport
    command: str | None = None
    url: str | None = None
    args: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    env: Mapping[str, str] = attrs.field(factory=dict, converter=_map)
    headers: Mapping[str, str] = attrs.field(factory=dict, converter=_map)
    approval: Approval | None = None
    tool_approvals: Mapping[str, str] = attrs.field(factory=dict, converter=_map)

    def validate(self) -> ServerSpec:
        """Raise :class:`UsageError` (exit status 2) for a malformed spec; never quotes values."""
        check_name(self.name)
        if self.transport not in TRANSPORTS:
            raise UsageError("choose a transport: --stdio CMD, --http URL or --sse URL")
        if self.transport == "stdio":
            if not self.command or "\0" in self.command or self.url is not None:
                raise UsageError("--stdio needs a non-empty command")
            if self.headers:
                raise UsageError("--header applies only to --http and --sse servers")
        else:
            if not is_http_url(self.url) or self.command is not None:
                raise UsageError(f"--{self.transport} needs an http:// or https:// URL")
            if self.env:
                raise UsageError("--env applies only to --stdio servers")
            if self.args:
                raise UsageError("arguments after -- apply only to --stdio servers")
        if any("\0" in arg for arg in self.args):
            raise UsageError("an argument after -- contains a NUL character")
        if not all(is_env_key(k) and "\0" not in v for k, v in self.env.items()):
            raise UsageError("--env needs KEY=VALUE with a non-empty KEY without '='")
        if not all(is_header_name(k) and is_header_value(v) for k, v in self.headers.items()):
            raise UsageError("--header needs NAME=VALUE: an HTTP header name, a one-line value")
        if self.approval is not None and self.approval not in APPROVALS:
            raise UsageError("--approval must be always or never")
        if not all(k and v in APPROVALS for k, v in self.tool_approvals.items()):
            raise UsageError("--tool-approval needs TOOL=always or TOOL=never")
        return self


def parse_assignments(
    items: Iterable[str], option: str, key_ok: Callable[[str], bool] = bool
) -> dict[str, str]:
    """``["K=V", ...]`` → ``{"K": "V"}`` (later keys win); errors never quote an item."""
    out: dict[str, str] = {}
    for position, item in enumerate(items, 1):
        key, sep, value = item.partition("=")
        if not sep or not key_ok(key):
            raise UsageError(f"{option} value #{position} must look like KEY=VALUE")
        out[key] = value
    return out


def build_entry(
    spec: ServerSpec, existing: Mapping[str, Any] | None, label: str = ""
) -> dict[str, Any]:
    """The entry to write for ``spec``, replacing ``existing`` (a raw entry) when given."""
    if existing is None:
        entry: dict[str, Any] = {"name": spec.name, "type": spec.transport}
    else:
        entry = normalise_keys(existing, label)
        if entry.get("type") != spec.transport:
            for field in SPECIFIC_FIELDS:
                entry.pop(field, None)
        entry["name"] = spec.name
        entry["type"] = spec.transport
    if spec.transport == "stdio":
        entry["command"] = spec.command
        entry["args"] = list(spec.args)
        _merge(entry, "env", spec.env)
    else:
        entry["url"] = spec.url
        _merge(entry, "headers", spec.headers)
    entry["approval"] = spec.approval or "always"
    _merge(entry, "tool_approvals", spec.tool_approvals)
    return entry


def _merge(entry: dict[str, Any], field: str, supplied: Mapping[str, str]) -> None:
    old = entry.get(field)
    merged = {**(old if isinstance(old, dict) else {}), **supplied}
    if merged:
        entry[field] = merged
    else:
        entry.pop(field, None)


__all__ = ["Approval", "ServerSpec", "build_entry", "parse_assignments"]
