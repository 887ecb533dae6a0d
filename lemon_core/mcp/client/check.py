"""``lemon mcp test NAME``: the library call behind it.

:func:`test_server` finds the server named exactly ``NAME`` in the effective set of the scope
(:func:`lemon_core.mcp.effective.effective_servers`: lemon's files, ``LEMON_MCP_SERVERS`` and
the servers imported from other tools), opens an isolated connection to it, performs the
handshake and tool discovery, and closes it. No tool is ever called. A disabled server is
tested too (the result says it is disabled): testing is an explicit request.
"""

from __future__ import annotations

from typing import TextIO

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError
from lemon_core.mcp.client.connection import ProbeResult, probe
from lemon_core.mcp.effective import EffectiveServer, effective_servers
from lemon_core.mcp.names import check_name, show


@attrs.frozen
class TestedServer:
    server: EffectiveServer
    result: ProbeResult

    __test__ = False  # not a pytest class


def find_server(ctx: LemonContext, name: str, *, scope: str = "project") -> EffectiveServer:
    """The server named exactly ``name`` in the effective set of ``scope``."""
    check_name(name)
    effective = effective_servers(ctx, scope=scope)  # type: ignore[arg-type]
    found = effective.get(name)
    if found is None:
        where = "the global scope" if scope == "global" else f"the project {ctx.cwd}"
        raise NotFoundError(f"no MCP server named {show(name)} is configured or imported for "
                            f"{where}; see 'lemon mcp list --all'")
    return found


def test_server(ctx: LemonContext, name: str, *, scope: str = "project",
                errlog: TextIO | None = None) -> TestedServer:
    """Connect to ``name``, list its tools, close. Raises
    :class:`~lemon_core.mcp.client.errors.McpConnectionError` (a fixed, redacted message) when
    that fails, :class:`NotFoundError` for an unknown name, a ``UsageError`` for an invalid
    one."""
    found = find_server(ctx, name, scope=scope)
    return TestedServer(found, probe(found.server, ctx, errlog=errlog))


test_server.__test__ = False  # type: ignore[attr-defined]

__all__ = ["TestedServer", "find_server", "test_server"]
