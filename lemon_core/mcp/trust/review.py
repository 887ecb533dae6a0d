"""What ``lemon mcp trust`` shows before it records: the project's servers that need trust,
split into those not trusted yet and those already trusted as they stand."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError
from lemon_core.mcp.names import show
from lemon_core.mcp.trust.identity import needs_trust, record_name
from lemon_core.mcp.trust.store import project_key, read_store
from lemon_core.models import McpServer


@attrs.frozen
class TrustReview:
    """``pending``: project servers not trusted (new, or changed since trusted); ``trusted``:
    those a record trusts as they are; ``own``: named servers of the user's own scopes (they
    need no trust)."""

    project: str
    pending: tuple[McpServer, ...] = ()
    trusted: tuple[McpServer, ...] = ()
    own: tuple[str, ...] = ()


def review(ctx: LemonContext, names: Sequence[str] = ()) -> TrustReview:
    """The servers of the project ``ctx.cwd`` (the effective set, disabled ones included),
    only ``names`` when given.

    :raises NotFoundError: for a name no server of the effective set has.
    """
    from lemon_core.mcp.effective import effective_servers

    servers = [item.server for item in effective_servers(ctx, scope="project").servers]
    if names:
        by_name = {record_name(s): s for s in servers}
        missing = [n for n in names if n not in by_name]
        if missing:
            raise NotFoundError(f"no MCP server named {', '.join(show(n) for n in missing)} "
                                "here; see 'lemon mcp list --all'")
        servers = [by_name[n] for n in dict.fromkeys(names)]
    data = read_store(ctx)
    project = project_key(ctx.cwd)
    pending, trusted, own = [], [], []
    for server in servers:
        if not needs_trust(server):
            own.append(record_name(server))
        elif data.trusts(project, server):
            trusted.append(server)
        else:
            pending.append(server)
    return TrustReview(project, tuple(pending), tuple(trusted), tuple(own))


__all__ = ["TrustReview", "review"]
