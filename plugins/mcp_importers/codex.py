"""Importer of OpenAI Codex CLI MCP servers: ``.codex/config.toml`` and (opt-in)
``~/.codex/config.toml``, one ``[mcp_servers.<name>]`` table per server.

- Transport: there is no ``type`` key; ``command`` means stdio, ``url`` Streamable HTTP.
- env: the ``env`` table, then each ``env_vars`` name (a string or ``{name, source}`` table) read
  from the environment; unset ones are omitted.
- headers: ``http_headers``, then ``env_http_headers`` (header → variable; unset or empty
  omitted), then ``Authorization: Bearer <value>`` of ``bearer_token_env_var`` (omitted when the
  variable is unset or empty; Codex itself would fail the server).
- A relative ``cwd`` resolves against the config file's directory; a ``./`` or ``../`` command
  against that resolved ``cwd`` when there is one, else the config file's directory.
- ``tool_timeout_sec`` (seconds, fractions allowed) → timeout; ``startup_timeout_sec`` (or
  ``startup_timeout_ms``) → ready timeout; ``enabled_tools`` / ``disabled_tools`` → allow/block.
- No ``${VAR}`` expansion. ``scopes``, ``oauth_resource`` and other auth keys are not imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lemon_core.fsio.read import FileProblem
from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit.files import FileImporter, server_map
from lemon_core.mcp.importer_kit.normalise import (
    EntrySkipped,
    as_str,
    as_str_map,
    check_presence,
    to_ms,
)
from lemon_core.records import ImportRequest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

_PATH_LIKE = ("./", "../", ".\\", "..\\")


def _env_var_names(value: Any) -> list[str]:
    """The names of ``env_vars``: strings or ``{name, source}`` tables."""
    if not isinstance(value, list):
        raise EntrySkipped("invalid_entry")
    names: list[str] = []
    for item in value:
        if isinstance(item, Mapping):
            names.append(as_str(item.get("name"), empty_ok=False))
            if item.get("source") is not None:
                as_str(item["source"])
        else:
            names.append(as_str(item, empty_ok=False))
    return names


def _resolve(value: str, base: Path) -> str:
    return os.path.normpath(base / value) if not Path(value).is_absolute() else value


class CodexImporter(FileImporter):
    name = "codex"
    order = 30
    project_files = ((".codex/config.toml",),)
    user_files = ((".codex/config.toml",),)
    expands_vars = False

    def parse(self, text: str, path: Path, request: ImportRequest) -> Any:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            # tomllib's messages describe the position, not the content (at most one character)
            raise FileProblem("parse", f"not valid TOML: {str(exc)[:200]}") from None
        except RecursionError:
            raise FileProblem("parse", "not valid TOML: nested too deeply") from None

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        return server_map(doc, "mcp_servers")

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        check_presence(raw.get("command") is not None, raw.get("url") is not None)
        ctx = request.ctx
        config_dir = path.parent
        fields: dict[str, Any] = {"url": raw.get("url"), "args": raw.get("args")}

        if raw.get("env") is not None or raw.get("env_vars") is not None:
            env = as_str_map(raw["env"]) if raw.get("env") is not None else {}
            if raw.get("env_vars") is not None:
                for var in _env_var_names(raw["env_vars"]):
                    if var in ctx.env:
                        env[var] = ctx.env[var]
            fields["env"] = env

        header_keys = ("http_headers", "env_http_headers", "bearer_token_env_var")
        if any(raw.get(key) is not None for key in header_keys):
            headers = as_str_map(raw["http_headers"]) if raw.get("http_headers") is not None else {}
            for header, var in as_str_map(raw.get("env_http_headers") or {}).items():
                value = ctx.getenv(var)
                if value:
                    headers[header] = value
            if raw.get("bearer_token_env_var") is not None:
                token = ctx.getenv(as_str(raw["bearer_token_env_var"], empty_ok=False))
                if token:
                    headers["Authorization"] = f"Bearer {token}"
            fields["headers"] = headers

        cwd = raw.get("cwd")
        if cwd is not None:
            cwd = _resolve(as_str(cwd, empty_ok=False), config_dir)
            fields["cwd"] = cwd
        command = raw.get("command")
        if isinstance(command, str) and command.startswith(_PATH_LIKE):
            command = _resolve(command, Path(cwd) if cwd else config_dir)
        fields["command"] = command

        if raw.get("tool_timeout_sec") is not None:
            fields["timeout_ms"] = to_ms(raw["tool_timeout_sec"], 1000)
        if raw.get("startup_timeout_sec") is not None:
            fields["ready_timeout_ms"] = to_ms(raw["startup_timeout_sec"], 1000)
        elif raw.get("startup_timeout_ms") is not None:
            fields["ready_timeout_ms"] = to_ms(raw["startup_timeout_ms"])
        fields["allow_tools"] = raw.get("enabled_tools")
        fields["block_tools"] = raw.get("disabled_tools")
        fields["enabled"] = raw.get("enabled")
        return fields


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(CodexImporter())
