"""JSON views of servers, one lemon file and the effective set: redacted unless ``reveal``.

The default views never hold a command, an argument, a URL, an environment or header value, a
tool policy, OAuth settings or an unknown extension field: environment, header and tool-policy
entries appear as counts. ``reveal=True`` adds the full normalised entry, secrets included; it
is meant for debugging only (``lemon mcp list --reveal``).

Stable keys (``lemon mcp list --all --json``)::

    {"effective": [SERVER...],
     "skipped": [{"name", "provider", "scope", "file", "reason", "index"}],
     "errors": [{"provider", "scope", "file", "kind", "message"}], "scope", "mcp_enabled"}
    SERVER = {"name", "transport", "enabled", "source": {"provider", "scope", "file"},
              "env_count", "header_count", "tool_approval_count", "approval", "state",
              "trusted"}

``trusted`` is whether lemon may start the server: always true for the user's own scopes; for
a project's server, whether the trust store (``lemon mcp trust``) records it as it stands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lemon_core.mcp.config import McpFile
from lemon_core.mcp.effective import EffectiveSet, SourceError
from lemon_core.models import McpServer

#: The fields ``reveal`` adds, in output order.
REVEALED_FIELDS = (
    "command", "args", "env", "cwd", "url", "headers", "timeout_ms", "ready_timeout_ms",
    "allow_tools", "block_tools", "allow_resources", "block_resources", "allow_prompts",
    "block_prompts", "tool_approvals", "oauth", "extra",
)  # fmt: skip


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "items"):
        return dict(value)
    return value


def server_view(server: McpServer, *, enabled: bool, reveal: bool = False) -> dict[str, Any]:
    """One server: name, transport, enabled, source and counts (plus everything if ``reveal``)."""
    view: dict[str, Any] = {
        "name": server.name,
        "transport": server.transport,
        "enabled": enabled,
        "source": {
            "provider": server.source.provider,
            "scope": server.source.scope,
            "file": server.source.file,
        },
        "env_count": len(server.env),
        "header_count": len(server.headers),
        "tool_approval_count": len(server.tool_approvals),
        # an entry without "approval" behaves as "never" (the spec's rule for old entries)
        "approval": server.approval or "never",
    }
    if reveal:
        view.update({field: _plain(getattr(server, field)) for field in REVEALED_FIELDS})
    return view


def file_state(mcp_file: McpFile, server: McpServer) -> bool:
    """A server's enabled state as far as its own file says (lists first, then the entry)."""
    state = mcp_file.state_for(server.name) if server.name is not None else None
    return server.enabled if state is None else state


def file_view(
    mcp_file: McpFile,
    *,
    reveal: bool = False,
    positions: tuple[int, ...] | None = None,
    errors: tuple[Any, ...] = (),
) -> dict[str, Any]:
    """``lemon mcp list [--global] --json``: one file, unnamed legacy entries included.

    ``positions`` are the servers' places in the file (when invalid entries were left out);
    ``errors`` the file's problems (:class:`~lemon_core.mcp.config.McpConfigError`), listed as
    ``{"kind", "message"}`` with the same messages as ``list --all``.
    """
    servers = []
    places = positions if positions is not None else range(len(mcp_file.servers))
    for index, server in zip(places, mcp_file.servers):
        view = server_view(server, enabled=file_state(mcp_file, server), reveal=reveal)
        view.pop("source")
        servers.append({"index": index, **view})
    return {
        "file": str(mcp_file.path),
        "scope": mcp_file.scope,
        "exists": mcp_file.exists,
        "enabled": mcp_file.enabled,
        "servers": servers,
        "enabled_servers": list(mcp_file.enabled_servers),
        "disabled_servers": list(mcp_file.disabled_servers),
        "errors": [{"kind": e.kind, "message": str(e)} for e in errors],
    }


def errors_view(errors: Iterable[SourceError]) -> list[dict[str, Any]]:
    """The effective set's source errors as JSON (``lemon mcp list --all``, ``mcp status``)."""
    return [{"provider": e.provider, "scope": e.scope, "file": e.file, "kind": e.kind,
             "message": e.message} for e in errors]


def effective_view(effective: EffectiveSet, *, reveal: bool = False,
                   trusted: Callable[[McpServer], bool] | None = None) -> dict[str, Any]:
    """``lemon mcp list --all --json``; ``trusted(server)`` answers each server's ``trusted``
    (default: true for all, as a caller that checks no trust sees them)."""
    servers = []
    for item in effective.servers:
        view = server_view(item.server, enabled=item.enabled, reveal=reveal)
        view["state"] = item.state
        view["trusted"] = True if trusted is None else trusted(item.server)
        servers.append(view)
    return {
        "effective": servers,
        "skipped": [
            {"name": s.name, "provider": s.provider, "scope": s.scope, "file": s.file,
             "reason": s.reason, "index": s.index}
            for s in effective.skipped
        ],
        "errors": errors_view(effective.errors),
        "scope": effective.scope,
        "mcp_enabled": effective.mcp_enabled,
    }  # fmt: skip


__all__ = ["REVEALED_FIELDS", "effective_view", "errors_view", "file_state", "file_view", "server_view"]
