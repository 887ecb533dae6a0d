"""The trust store: ``<agent dir>/mcp-trust.json``, the user's record of trusted project servers.

It lives in lemon's agent folder (``LEMON_AGENT_DIR``, else ``~/.lemon/agent``), never in a
project: a store that resolves inside the project being judged (other than the home folder
itself) is not used, so nothing a cloned repository holds can trust its own servers. It is
written like lemon's other files: under its sibling ``mcp-trust.json.lock`` directory, read
again there, replaced atomically (a private 0600 file, fsync, rename), so concurrent
``lemon mcp trust`` runs never lose each other's records.

Shape (version 1)::

    {"version": 1, "key": "<64 hex: the key of the secrets digests>",
     "projects": {"<project real path>": {"servers": {"<name>": {
         "transport", "command", "args", "cwd", "url", "secrets", "provider", "file",
         "trusted_at"}}}}}

A record trusts a server of that project while ``transport``, ``command``, ``args``, ``cwd``,
``url`` and ``secrets`` (:func:`~lemon_core.mcp.trust.identity.launch_record`) are all equal to
the entry's; the other fields are for people. Unknown fields are kept.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core import jsondata
from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError, LemonError
from lemon_core.fsio import read as reading
from lemon_core.mcp.trust.identity import launch_record, record_name
from lemon_core.models import McpServer

FILE_NAME = "mcp-trust.json"
VERSION = 1
MAX_STORE_BYTES = 8 * 1024 * 1024
_COMPARED = ("transport", "command", "args", "cwd", "url", "secrets")


class TrustStoreError(ConfigError):
    """The trust store cannot be used (unreadable, invalid, in the project, no agent folder)."""


def project_key(project: Path) -> str:
    """The project's real path (links resolved): the key its records are filed under."""
    return os.path.realpath(project)


def store_path(ctx: LemonContext) -> Path:
    """``<agent dir>/mcp-trust.json``.

    :raises TrustStoreError: when there is no usable agent folder, or when the store would lie
        inside the project ``ctx.cwd`` (a project could then write its own trust).
    """
    agent = ctx.usable_agent_dir
    if agent is None:
        raise TrustStoreError(f"lemon's agent folder is unusable (home {ctx.home} "
                              f"{ctx.home_problem}); set LEMON_AGENT_DIR to record MCP trust")
    path = agent / FILE_NAME
    project = project_key(ctx.cwd)
    real = os.path.realpath(path)
    if project != os.path.realpath(ctx.home) and (real + os.sep).startswith(project + os.sep):
        raise TrustStoreError(f"the MCP trust store {path} lies inside the project {project}, "
                              "which could write it; lemon trusts none of this project's "
                              "servers: set LEMON_AGENT_DIR to a folder outside it")
    return path


@attrs.frozen
class TrustData:
    """A parsed store: the digest ``key`` (None before the first record) and every record."""

    key: bytes | None = None
    projects: Mapping[str, Mapping[str, Mapping[str, Any]]] = attrs.field(factory=dict)
    raw: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)

    def record(self, project: str, name: str) -> Mapping[str, Any] | None:
        return self.projects.get(project, {}).get(name)

    def trusts(self, project: str, server: McpServer) -> bool:
        """Whether a record of ``project`` matches ``server``'s launch identity exactly."""
        found = self.record(project, record_name(server))
        if found is None or self.key is None:
            return False
        current = launch_record(server, self.key)
        return all(found.get(field) == current[field] for field in _COMPARED)


def parse(content: bytes | None, where: str) -> TrustData:
    """A store's bytes (None: no store yet) as :class:`TrustData`; raises
    :class:`TrustStoreError` naming ``where`` for anything else than version 1's shape."""
    if content is None:
        return TrustData()
    bad = TrustStoreError(f"{where} is not a valid MCP trust store; fix it or remove it (every "
                          "project server is then untrusted until trusted again)")
    try:
        data = jsondata.loads(content)
    except reading.FileProblem:
        raise bad from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise bad
    try:
        key = bytes.fromhex(data["key"]) if "key" in data else None
    except (TypeError, ValueError):
        raise bad from None
    projects = data.get("projects", {})
    if not isinstance(projects, dict) or (key is not None and len(key) != 32):
        raise bad
    out: dict[str, dict[str, Mapping[str, Any]]] = {}
    for project, entry in projects.items():
        servers = entry.get("servers") if isinstance(entry, dict) else None
        if not isinstance(servers, dict) or not all(isinstance(v, dict)
                                                    for v in servers.values()):
            raise bad
        out[project] = servers
    return TrustData(key, out, data)


def read_store(ctx: LemonContext) -> TrustData:
    """The store as it is now (an empty one when there is none)."""
    path = store_path(ctx)
    try:
        content = reading.read_bytes(path, MAX_STORE_BYTES)
    except reading.FileProblem as problem:
        raise TrustStoreError(f"cannot read the MCP trust store {path}: {problem.message}") \
            from None
    return parse(content, str(path))


def _edit(ctx: LemonContext, change: Any) -> Any:
    """Apply ``change(raw dict, key) -> result`` to the store under its lock; returns the
    result."""
    from lemon_core.fsio import dump_json, update_file
    from lemon_core.mcp.config import lock_timeout

    path = store_path(ctx)
    outcome: list[Any] = []

    def transform(snapshot: Any) -> bytes:
        current = parse(snapshot.content, str(path))
        raw = dict(current.raw) or {"version": VERSION}
        key = current.key or os.urandom(32)
        raw["key"] = key.hex()
        outcome.append(change(raw, key))
        return dump_json(raw)

    try:
        update_file(path, transform, timeout=lock_timeout(ctx))
    except OSError as exc:
        raise LemonError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
    with contextlib.suppress(OSError):  # a store first made by hand gets lemon's mode
        os.chmod(path, 0o600)
    return outcome[-1]


def _servers_of(raw: dict[str, Any], project: str) -> dict[str, Any]:
    projects = raw.setdefault("projects", {})
    entry = projects.setdefault(project, {})
    return entry.setdefault("servers", {})


def trust_servers(ctx: LemonContext, servers: Iterable[McpServer]) -> list[str]:
    """Record ``servers`` (of the project ``ctx.cwd``) as trusted, as they are now; returns
    their record names."""
    chosen = list(servers)
    project = project_key(ctx.cwd)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())

    def change(raw: dict[str, Any], key: bytes) -> list[str]:
        records = _servers_of(raw, project)
        names = []
        for server in chosen:
            name = record_name(server)
            records[name] = {**launch_record(server, key), "provider": server.source.provider,
                             "file": server.source.file, "trusted_at": stamp}
            names.append(name)
        return names

    return _edit(ctx, change)


def untrust_servers(ctx: LemonContext, names: Iterable[str] | None = None) -> list[str]:
    """Forget the records of ``names`` (None: every record) of the project ``ctx.cwd``;
    returns the names forgotten."""
    project = project_key(ctx.cwd)
    wanted = None if names is None else set(names)

    def change(raw: dict[str, Any], key: bytes) -> list[str]:
        records = _servers_of(raw, project)
        gone = sorted(n for n in records if wanted is None or n in wanted)
        for name in gone:
            del records[name]
        if not records:
            del raw["projects"][project]
        return gone

    return _edit(ctx, change)


__all__ = ["FILE_NAME", "MAX_STORE_BYTES", "TrustData", "TrustStoreError", "parse",
           "project_key", "read_store", "store_path", "trust_servers", "untrust_servers"]
