"""The schema of one MCP server entry in lemon's own files and in ``LEMON_MCP_SERVERS``.

The spec's tables (stdio, Streamable HTTP, legacy SSE) are checked field by field; a problem
raises :class:`~lemon_core.errors.ConfigError` whose message names the entry (``servers[2]
"git"``) and the field, and never the field's value (it may be a credential). snake_case and
kebab-case spellings of the known fields are both accepted; both at once is ambiguous. Unknown
fields are kept in :attr:`McpServer.extra`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from lemon_core.errors import ConfigError
from lemon_core.mcp.names import NAME_RULE, is_valid_name, show
from lemon_core.models import McpServer, ServerSource

TRANSPORTS = ("stdio", "http", "sse")
APPROVALS = ("always", "never")
FILTER_FIELDS = tuple(
    f"{kind}_{what}" for what in ("tools", "resources", "prompts") for kind in ("allow", "block")
)
COMMON_FIELDS = (
    "name", "type", "enabled", "disabled", "approval", "tool_approvals", "timeout_ms",
    "ready_timeout_ms", *FILTER_FIELDS, "sampling",
)  # fmt: skip
#: The keys of an entry's ``sampling`` object (the server's sampling policy).
SAMPLING_KEYS = ("max_tokens", "allowed_models", "mode")
SAMPLING_MODES = ("reviewed", "direct")
STDIO_FIELDS = ("command", "args", "env", "cwd")
REMOTE_FIELDS = ("url", "headers")
OAUTH_SIDE_FIELDS = ("persist_oauth_tokens", "oauth_token_secret")
#: Fields that belong to some transports only, by transport.
TRANSPORT_FIELDS: Mapping[str, tuple[str, ...]] = {
    "stdio": STDIO_FIELDS,
    "http": (*REMOTE_FIELDS, "oauth", *OAUTH_SIDE_FIELDS),
    "sse": (*REMOTE_FIELDS, *OAUTH_SIDE_FIELDS),
}
SPECIFIC_FIELDS = frozenset(STDIO_FIELDS + REMOTE_FIELDS + ("oauth",) + OAUTH_SIDE_FIELDS)
KNOWN_FIELDS = frozenset(COMMON_FIELDS) | SPECIFIC_FIELDS
KEBAB_FIELDS = {f.replace("_", "-"): f for f in KNOWN_FIELDS if "_" in f}

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z\-]+", re.ASCII)
_OAUTH_STRINGS = ("client_id", "client_secret", "client_secret_secret", "redirect_uri", "scope")
_OAUTH_CHOICES = {
    "flow": ("client_credentials", "authorization_code_pkce"),
    "token_auth_method": ("client_secret_post", "client_secret_basic"),
}


def is_http_url(value: object) -> bool:
    """True for an ``http://`` or ``https://`` URL with a host and no white space."""
    if not isinstance(value, str) or not value or any(c.isspace() or ord(c) < 32 for c in value):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def is_env_key(key: object) -> bool:
    return isinstance(key, str) and bool(key) and "=" not in key and "\0" not in key


def is_header_name(key: object) -> bool:
    return isinstance(key, str) and _HEADER_NAME.fullmatch(key) is not None


def is_header_value(value: object) -> bool:
    return isinstance(value, str) and not any(c in value for c in "\r\n\0")


def entry_label(prefix: str, index: int, raw: object) -> str:
    """``servers[2] "git"`` (the name only when it is a valid one), for messages."""
    name = raw.get("name") if isinstance(raw, Mapping) else None
    return f"{prefix}[{index}] {show(name)}" if is_valid_name(name) else f"{prefix}[{index}]"


def normalise_keys(raw: Mapping[str, Any], label: str) -> dict[str, Any]:
    """A copy of ``raw`` with kebab-case known fields renamed to snake_case."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        canon = KEBAB_FIELDS.get(key, key)
        if canon in out:
            raise ConfigError(f"{label}: {show(canon)} is given twice (snake and kebab case)")
        out[canon] = value
    return out


_MISSING: Any = object()


class EntryError(ConfigError):
    """An entry fails the schema; ``field`` names the field (None: the entry as a whole)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class _Checker:
    """Field checks for one entry; every failure names the entry and the field.

    Each check reads ``field`` from the entry, or takes ``value`` when one is passed (nested
    fields such as ``oauth.client_id``); an absent field gives None (or the default).
    """

    def __init__(self, data: Mapping[str, Any], label: str) -> None:
        self.data = data
        self.label = label

    def fail(self, field: str, problem: str) -> ConfigError:
        return EntryError(f"{self.label}: field {show(field)} {problem}", field)

    def _get(self, field: str, value: Any) -> Any:
        return self.data.get(field, _MISSING) if value is _MISSING else value

    def string(self, field: str, value: Any = _MISSING, *, required: bool = False) -> str | None:
        value = self._get(field, value)
        if value is _MISSING:
            if required:
                raise self.fail(field, "is required")
            return None
        if not isinstance(value, str) or not value or "\0" in value:
            raise self.fail(field, "must be a non-empty string")
        return value

    def strings(self, field: str, value: Any = _MISSING) -> tuple[str, ...] | None:
        value = self._get(field, value)
        if value is _MISSING:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(field, "must be a list of strings")
        return tuple(value)

    def mapping(self, field: str, key_ok: Any, value_ok: Any, what: str) -> dict[str, str]:
        value = self.data.get(field, {})
        if not isinstance(value, dict):
            raise self.fail(field, f"must be an object mapping {what}")
        for key, item in value.items():
            if not key_ok(key) or not value_ok(item):
                raise self.fail(field, f"must map {what} (an entry is invalid)")
        return dict(value)

    def flag(self, field: str, default: bool, value: Any = _MISSING) -> bool:
        value = self._get(field, value)
        if value is _MISSING:
            return default
        if not isinstance(value, bool):
            raise self.fail(field, "must be true or false")
        return value

    def positive_int(self, field: str, value: Any = _MISSING) -> int | None:
        value = self._get(field, value)
        if value is _MISSING:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise self.fail(field, "must be a positive integer (milliseconds)")
        return value

    def choice(self, field: str, choices: tuple[str, ...], value: Any = _MISSING) -> str | None:
        value = self._get(field, value)
        if value is _MISSING:
            return None
        if not isinstance(value, str) or value not in choices:
            raise self.fail(field, "must be " + " or ".join(f'"{c}"' for c in choices))
        return value


def _check_oauth(check: _Checker) -> dict[str, Any] | None:
    if "oauth" not in check.data:
        return None
    oauth = check.data["oauth"]
    if not isinstance(oauth, dict):
        raise check.fail("oauth", "must be an object")
    for key, value in oauth.items():
        field = f"oauth.{key}"
        if key in _OAUTH_STRINGS or key == "token_secret":
            check.string(field, value)
        elif key in _OAUTH_CHOICES:
            check.choice(field, _OAUTH_CHOICES[key], value)
        elif key == "scopes":
            check.strings(field, value)
        elif key == "authorization_timeout_ms":
            check.positive_int(field, value)
        elif key == "authorization_approval":
            check.flag(field, True, value)
    if "client_id" not in oauth:
        raise check.fail("oauth.client_id", "is required")
    if oauth.get("flow") == "authorization_code_pkce":
        if "redirect_uri" not in oauth:
            raise check.fail("oauth.redirect_uri", "is required for authorization_code_pkce")
    elif "client_secret" not in oauth and "client_secret_secret" not in oauth:
        raise check.fail("oauth.client_secret", "or client_secret_secret is required")
    return dict(oauth)


def _check_sampling(check: _Checker) -> dict[str, Any]:
    """The entry's ``sampling`` policy: ``max_tokens`` (a positive integer), ``allowed_models``
    (non-empty strings), ``mode`` (``reviewed`` or ``direct``); no other key."""
    sampling = check.data["sampling"]
    if not isinstance(sampling, dict):
        raise check.fail("sampling", "must be an object (max_tokens, allowed_models, mode)")
    for key in sampling:
        if key not in SAMPLING_KEYS:
            raise check.fail(f"sampling.{key}", "is not a sampling setting (max_tokens, "
                             "allowed_models, mode)")
    tokens = sampling.get("max_tokens")
    if "max_tokens" in sampling and (isinstance(tokens, bool) or not isinstance(tokens, int)
                                     or tokens <= 0):
        raise check.fail("sampling.max_tokens", "must be a positive integer")
    models = check.strings("sampling.allowed_models", sampling.get("allowed_models", _MISSING))
    if models is not None and not all(models):
        raise check.fail("sampling.allowed_models", "must be a list of non-empty strings")
    check.choice("sampling.mode", SAMPLING_MODES, sampling.get("mode", _MISSING))
    return dict(sampling)


def parse_entry(raw: object, *, label: str, source: ServerSource) -> McpServer:
    """Validate one raw entry and return it normalised; raise ConfigError naming the field."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{label}: must be a JSON object")
    data = normalise_keys(raw, label)
    check = _Checker(data, label)
    name = data.get("name")
    if "name" in data and not is_valid_name(name):
        shown = f" ({show(name)})" if isinstance(name, str) else ""
        raise check.fail("name", f"{shown} must be {NAME_RULE}".lstrip())
    transport = check.choice("type", TRANSPORTS)
    if transport is None:
        raise check.fail("type", 'is required: "stdio", "http" or "sse"')
    for field in sorted(SPECIFIC_FIELDS - set(TRANSPORT_FIELDS[transport])):
        if field in data:
            only = "http" if field == "oauth" else "stdio" if field in STDIO_FIELDS else "http/sse"
            raise check.fail(field, f"does not apply to {transport} servers (only {only})")
    fields: dict[str, Any] = {}
    if transport == "stdio":
        fields["command"] = check.string("command", required=True)
        fields["args"] = check.strings("args") or ()
        fields["env"] = check.mapping("env", is_env_key, _no_nul, "variable names to strings")
        fields["cwd"] = check.string("cwd")
    else:
        if not is_http_url(data.get("url")):
            raise check.fail("url", "is required and must be an http:// or https:// URL")
        fields["url"] = data["url"]
        fields["headers"] = check.mapping(
            "headers", is_header_name, is_header_value, "header names to strings"
        )
        fields["oauth"] = _check_oauth(check)
    extra = {k: v for k, v in data.items() if k not in KNOWN_FIELDS}
    if "persist_oauth_tokens" in data:
        extra["persist_oauth_tokens"] = check.flag("persist_oauth_tokens", False)
    if "oauth_token_secret" in data:
        extra["oauth_token_secret"] = check.string("oauth_token_secret")
    if "sampling" in data:
        extra["sampling"] = _check_sampling(check)
    for field in FILTER_FIELDS:
        fields[field] = check.strings(field)
    approvals = check.mapping(
        "tool_approvals", _tool_name, lambda v: v in APPROVALS, 'tool names to "always" or "never"'
    )
    enabled, disabled = check.flag("enabled", True), check.flag("disabled", False)
    return McpServer(
        name=name,
        transport=transport,  # type: ignore[arg-type]
        source=source,
        timeout_ms=check.positive_int("timeout_ms"),
        ready_timeout_ms=check.positive_int("ready_timeout_ms"),
        approval=check.choice("approval", APPROVALS),  # type: ignore[arg-type]
        tool_approvals=approvals,
        enabled=enabled and not disabled,
        extra=extra,
        **fields,
    )


def entry_of(server: McpServer) -> dict[str, Any]:
    """The entry of lemon's own file that ``server`` amounts to (for :func:`check_server`)."""
    entry: dict[str, Any] = {"name": server.name, "type": server.transport}
    if server.name is None:
        del entry["name"]
    if server.transport == "stdio":
        entry.update(command=server.command, args=list(server.args), env=dict(server.env))
        if server.cwd is not None:
            entry["cwd"] = server.cwd
    else:
        entry.update(url=server.url, headers=dict(server.headers))
        if server.oauth is not None:
            entry["oauth"] = dict(server.oauth)
    for field in ("timeout_ms", "ready_timeout_ms", "approval", *FILTER_FIELDS):
        value = getattr(server, field)
        if value is not None:
            entry[field] = list(value) if isinstance(value, tuple) else value
    if server.tool_approvals:
        entry["tool_approvals"] = dict(server.tool_approvals)
    if "sampling" in server.extra:
        entry["sampling"] = server.extra["sampling"]
    entry["enabled"] = server.enabled
    return entry


def check_server(server: McpServer) -> str | None:
    """Does ``server`` (built from another tool's file) pass the schema of lemon's own files?
    None when it does, else the field that fails (``"entry"`` for the entry as a whole)."""
    try:
        parse_entry(entry_of(server), label="entry", source=server.source)
    except EntryError as exc:
        return exc.field or "entry"
    except ConfigError:
        return "entry"
    return None


def _no_nul(value: object) -> bool:
    return isinstance(value, str) and "\0" not in value


def _tool_name(value: object) -> bool:
    return isinstance(value, str) and bool(value)


__all__ = [
    "APPROVALS",
    "FILTER_FIELDS",
    "EntryError",
    "KEBAB_FIELDS",
    "KNOWN_FIELDS",
    "SPECIFIC_FIELDS",
    "TRANSPORTS",
    "TRANSPORT_FIELDS",
    "check_server",
    "entry_label",
    "entry_of",
    "is_env_key",
    "is_header_name",
    "is_header_value",
    "is_http_url",
    "normalise_keys",
    "parse_entry",
]
