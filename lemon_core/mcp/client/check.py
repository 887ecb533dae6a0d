"""``lemon mcp test NAME``: the library call behind it.

:func:`test_server` finds the server named exactly ``NAME`` in the effective set that
``lemon mcp status`` connects to (lemon's project and global files, ``LEMON_MCP_SERVERS`` and
the other tools' files that were imported; with ``--global``, the global scope's set), opens an
isolated connection to it, performs the handshake and tool discovery, and closes it. No tool is
ever called. A disabled server is tested too (the result says it is disabled): testing is an
explicit request. A server of the project's files that the user has not trusted (``lemon mcp
trust``) is refused before anything starts, as ``status`` leaves it out. A name that is not in
the set is refused with the closest names, and where a skipped entry of that name comes from.
"""

from __future__ import annotations

from typing import TextIO

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError
from lemon_core.mcp.client.connection import ProbeResult, probe
from lemon_core.mcp.effective import EffectiveServer, effective_servers
from lemon_core.mcp.names import check_name, close_names, show
from lemon_core.text import escape


@attrs.frozen
class TestedServer:
    server: EffectiveServer
    result: ProbeResult

    __test__ = False  # not a pytest class


def find_server(ctx: LemonContext, name: str, *, scope: str = "project") -> EffectiveServer:
    """The server named exactly ``name`` in the effective set of ``scope`` (its enabled state
    decided by the files' lists, its origin in ``server.source``)."""
    check_name(name)
    effective = effective_servers(ctx, scope=scope)  # type: ignore[arg-type]
    found = effective.get(name)
    if found is not None:
        return found
    where = "the global scope" if scope == "global" else "this project's effective set"
    message = f"no MCP server named {show(name)} in {where}"
    if scope == "global" and effective_servers(ctx, scope="project").get(name) is not None:
        message += "; it is a server of this project: drop --global"
    skipped = [s for s in effective.skipped if s.name == name]
    if skipped:
        first = skipped[0]
        message += (f"; an entry of {escape(first.provider)}:{escape(first.scope)} was "
                    f"skipped ({escape(first.reason)})")
    near = close_names(name, (s.name for s in effective.servers if s.name))
    if near:
        message += "; did you mean " + ", ".join(show(n) for n in near) + "?"
    raise NotFoundError(message + "; see 'lemon mcp list --all'")


def test_server(ctx: LemonContext, name: str, *, scope: str = "project",
                errlog: TextIO | None = None) -> TestedServer:
    """Connect to ``name``, list its tools, close. Raises
    :class:`~lemon_core.mcp.client.errors.McpConnectionError` (a fixed, redacted message) when
    that fails, :class:`NotFoundError` for an unknown name, a ``UsageError`` for an invalid
    one."""
    from lemon_core.mcp.trust.policy import require_trusted

    found = find_server(ctx, name, scope=scope)
    require_trusted(ctx, found.server)  # as 'lemon mcp status' applies trust
    return TestedServer(found, probe(found.server, ctx, errlog=errlog))


test_server.__test__ = False  # type: ignore[attr-defined]

__all__ = ["TestedServer", "find_server", "test_server"]
