"""The trust policy the tool host asks before it starts or contacts a project's server.

A policy is any callable ``policy(project, server) -> bool`` (:class:`TrustPolicy`):
``project`` is the project folder (``ctx.cwd``), ``server`` an enabled
:class:`~lemon_core.models.McpServer` that needs trust
(:func:`~lemon_core.mcp.trust.identity.needs_trust`: servers of the user's own scopes are
never asked about). True lets the host start it. The default, :class:`StoreTrust`, answers
from the trust store that ``lemon mcp trust`` writes; an embedder may pass its own (its own
prompt, its own records, or ``lambda project, server: True`` to keep the old behaviour in a
sandbox it controls).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from lemon_core.context import LemonContext
from lemon_core.errors import LemonError
from lemon_core.mcp.trust.identity import needs_trust
from lemon_core.mcp.trust.store import (
    TrustData,
    TrustStoreError,
    project_key,
    read_store,
)
from lemon_core.models import McpServer


class TrustPolicy(Protocol):
    def __call__(self, project: Path, server: McpServer, /) -> bool: ...


class StoreTrust:
    """The store's answer. The store's place and the project's real path are resolved once;
    the store is read again only when its file changed (one ``stat`` per question), so a
    ``lemon mcp trust`` run while a gateway is up counts at its next discovery. A store that
    cannot be used trusts nothing (``problem`` says why)."""

    def __init__(self, ctx: LemonContext) -> None:
        from lemon_core.mcp.trust.store import store_path

        self.ctx = ctx
        self.problem: str | None = None
        self._seen: Any = None
        self._data = TrustData()
        self._projects: dict[Path, str] = {}
        try:
            self._path: Path | None = store_path(ctx)
        except TrustStoreError as exc:
            self._path, self.problem = None, str(exc)

    def _current(self) -> TrustData:
        if self._path is None:
            return self._data
        try:
            info = os.stat(self._path)
            seen: Any = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            seen = "missing"
        if seen != self._seen:
            try:
                self._data, self.problem = read_store(self.ctx), None
            except TrustStoreError as exc:
                self._data, self.problem = TrustData(), str(exc)
            self._seen = seen
        return self._data

    def __call__(self, project: Path, server: McpServer, /) -> bool:
        key = self._projects.get(project)
        if key is None:
            key = self._projects[project] = project_key(project)
        return self._current().trusts(key, server)


def _asks_yes(policy: TrustPolicy, project: Path, server: McpServer) -> bool:
    try:
        return policy(project, server) is True
    except Exception:  # noqa: BLE001 - an embedder's policy that fails trusts nothing
        return False


def untrusted(servers: Iterable[McpServer], project: Path,
              policy: TrustPolicy) -> list[McpServer]:
    """The servers of ``servers`` that need trust and that ``policy`` does not trust (only an
    answer of exactly True trusts; a policy that raises trusts nothing)."""
    return [s for s in servers if needs_trust(s) and not _asks_yes(policy, project, s)]


class UntrustedServerError(LemonError):
    """A command named a project server that the user has not trusted (exit status 1)."""


def hint(names: Iterable[str]) -> str:
    """What to run to trust ``names`` (or every server, when empty)."""
    listed = " ".join(names)
    return (f"review it and run 'lemon mcp trust {listed}'" if listed else
            "review them and run 'lemon mcp trust'")


def require_trusted(ctx: LemonContext, server: McpServer,
                    policy: TrustPolicy | None = None) -> None:
    """Raise :class:`UntrustedServerError` unless ``server`` may be started or contacted."""
    from lemon_core.mcp.trust.identity import record_name
    from lemon_core.text import escape

    if not needs_trust(server) or (policy or StoreTrust(ctx))(ctx.cwd, server):
        return
    name = record_name(server)
    raise UntrustedServerError(
        f'MCP server "{escape(name)}" comes from this project '
        f"({escape(server.source.provider)}:{escape(server.source.scope)}) and is not trusted "
        f"(or changed since it was trusted), so lemon does not start or contact it; "
        f"{hint([escape(name)])}")


__all__ = ["StoreTrust", "TrustPolicy", "UntrustedServerError", "hint", "require_trusted",
           "untrusted"]
