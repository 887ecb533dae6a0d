"""``lemon mcp test NAME``: the library call behind it.

:func:`test_server` finds the entry named exactly ``NAME`` in the chosen lemon file (the
project's ``.lemon/mcp.json``, or the global one with ``--global``; the spec: "remove and test
select an exact name in the chosen file, not another scope"), opens an isolated connection to
it, performs the handshake and tool discovery, and closes it. No tool is ever called. A
disabled server is tested too (the result says it is disabled): testing is an explicit
request. A name that only another scope, ``LEMON_MCP_SERVERS`` or another tool's file defines
is refused with a message naming where it comes from, so the user sees why. A project entry
the user has not trusted (``lemon mcp trust``) is refused before anything starts.
"""

from __future__ import annotations

from typing import TextIO

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import NotFoundError
from lemon_core.mcp.client.connection import ProbeResult, probe
from lemon_core.mcp.effective import EffectiveServer, effective_servers
from lemon_core.mcp.names import check_name, show
from lemon_core.text import escape


@attrs.frozen
class TestedServer:
    server: EffectiveServer
    result: ProbeResult

    __test__ = False  # not a pytest class


def find_server(ctx: LemonContext, name: str, *, scope: str = "project") -> EffectiveServer:
    """The entry named exactly ``name`` in the lemon file of ``scope`` (as the effective set of
    that scope sees it: its enabled state decided by the files' lists)."""
    check_name(name)
    effective = effective_servers(ctx, scope=scope)  # type: ignore[arg-type]
    found = effective.get(name)
    source = found.server.source if found is not None else None
    if source is not None and source.provider == "lemon" and source.scope == scope:
        return found  # type: ignore[return-value]
    chosen = "the global lemon file" if scope == "global" else "the project's .lemon/mcp.json"
    message = f"no MCP server named {show(name)} in {chosen}"
    if source is not None:
        where = escape(source.file) if source.file else "the environment (LEMON_MCP_SERVERS)"
        message += (f"; it comes from {escape(source.provider)} ({where}), and "
                    "'lemon mcp test' only tests an entry of the chosen lemon file")
        if source.provider == "lemon":
            message += "; add --global" if source.scope == "global" else ""
    raise NotFoundError(message + "; see 'lemon mcp list --all'")


def test_server(ctx: LemonContext, name: str, *, scope: str = "project",
                errlog: TextIO | None = None) -> TestedServer:
    """Connect to ``name``, list its tools, close. Raises
    :class:`~lemon_core.mcp.client.errors.McpConnectionError` (a fixed, redacted message) when
    that fails, :class:`NotFoundError` for an unknown name, a ``UsageError`` for an invalid
    one."""
    from lemon_core.mcp.trust.policy import require_trusted

    found = find_server(ctx, name, scope=scope)
    require_trusted(ctx, found.server)
    return TestedServer(found, probe(found.server, ctx, errlog=errlog))


test_server.__test__ = False  # type: ignore[attr-defined]

__all__ = ["TestedServer", "find_server", "test_server"]
