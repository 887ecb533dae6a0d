"""One session with one configured server: connect, handshake, discover, close.

:func:`connect` is the async building block (the MCP runtime's tool host holds one per server
and adds reconnects, names and calls on top); :func:`probe` is what ``lemon mcp test`` runs:
an isolated connection that performs the handshake and lists the tools (every page), then
closes, never calling a tool. Every failure becomes a
:class:`~lemon_core.mcp.client.errors.McpConnectionError` of a fixed kind
(:func:`classify`), so no configuration value or transport error text reaches the user.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, TextIO

import attrs

from lemon_core.context import LemonContext
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.transports import (
    StatusRecorder,
    ready_timeout,
    request_timeout,
    transport_for,
)
from lemon_core.models import McpServer

#: The most tools/list pages followed (a server whose cursor never ends cannot hang a probe).
MAX_TOOL_PAGES = 100


@attrs.frozen
class ToolInfo:
    name: str
    description: str | None = None


@attrs.frozen
class ProbeResult:
    """What the handshake and discovery found (``server_name``/``server_version`` are the
    server's own words: escape them before printing)."""

    name: str | None
    transport: str
    protocol_version: str | None
    server_name: str | None
    server_version: str | None
    tools: tuple[ToolInfo, ...]
    capabilities: tuple[str, ...]
    elapsed_ms: float

    @property
    def tool_count(self) -> int:
        return len(self.tools)


def _leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, which task groups raise."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, tuple) and all(isinstance(e, BaseException) for e in inner):
        return [leaf for e in inner for leaf in _leaves(e)]
    return [exc]


def classify(exc: BaseException, server: McpServer, phase: str,
             http_status: int | None = None) -> McpConnectionError:
    """The fixed-kind error for whatever the SDK or the transport raised (``http_status``:
    the last HTTP error status the server answered, if any)."""
    name, transport = server.name, server.transport
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, McpConnectionError):
            return leaf
    if http_status is not None:
        return McpConnectionError(name, transport, "http_status", phase=phase,
                                  status=http_status)
    for leaf in leaves:
        kind, status = _kind_of(leaf)
        if kind is not None:
            seconds = ready_timeout(server) if phase == "handshake" else request_timeout(server)
            return McpConnectionError(name, transport, kind, phase=phase, status=status,
                                      seconds=seconds)
    return McpConnectionError(name, transport, "protocol", phase=phase)


def _kind_of(exc: BaseException) -> tuple[str | None, int | None]:
    import anyio
    import httpx2
    from mcp.shared.exceptions import MCPError

    if isinstance(exc, TimeoutError | httpx2.TimeoutException):
        return "timeout", None
    if isinstance(exc, httpx2.HTTPStatusError):
        return "http_status", exc.response.status_code
    if isinstance(exc, httpx2.TransportError | ConnectionError):
        return "connect_failed", None
    if isinstance(exc, FileNotFoundError | PermissionError | NotADirectoryError):
        return "spawn_failed", None
    if isinstance(exc, anyio.ClosedResourceError | anyio.BrokenResourceError | EOFError):
        return "closed", None
    if isinstance(exc, MCPError):
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        code = getattr(getattr(exc, "error", None), "code", None)
        if code == REQUEST_TIMEOUT:
            return "timeout", None
        if code == CONNECTION_CLOSED:
            return "closed", None
        return "refused", None
    if isinstance(exc, OSError | ValueError):
        return "spawn_failed", None
    return None, None


@asynccontextmanager
async def connect(server: McpServer, ctx: LemonContext, *, errlog: TextIO | None = None,
                  message_handler: Any = None, sampling_callback: Any = None,
                  on_transport: Any = None) -> AsyncIterator[Any]:
    """An initialized ``mcp.Client`` for ``server`` (legacy ``initialize`` handshake, which
    every server speaks; no response cache), closed on exit. Each request, the handshake
    included, waits at most the entry's ``timeout_ms``; a caller wanting one deadline for the
    whole session puts ``anyio.fail_after`` around the ``async with`` (never inside it: the
    client's task groups must close inside the scope that opened them). ``message_handler``
    receives the server's notifications (the SDK's own hook; it must not await the session);
    ``sampling_callback``, when given, advertises sampling and answers the server's requests;
    ``on_transport``, when given, is called with the transport before it starts (the runtime
    asks a stdio transport why its stream ended, to say so for a failed call, and waits on
    its :meth:`~lemon_core.mcp.client.watch.Watched.wait_closed` to notice a server gone while
    idle)."""
    from mcp import Client
    from mcp_types import Implementation

    from lemon_core import __version__

    if server.transport == "stdio" and not server.command or \
            server.transport != "stdio" and not server.url:
        raise McpConnectionError(server.name, server.transport, "invalid_config")
    statuses = StatusRecorder()
    transport = transport_for(server, ctx, errlog=errlog, statuses=statuses)
    if on_transport is not None:
        from lemon_core.mcp.client.watch import Watched

        transport = Watched(transport, server.name)
        on_transport(transport)
    client = Client(transport, mode="legacy", cache=None,
                    read_timeout_seconds=request_timeout(server), message_handler=message_handler,
                    sampling_callback=sampling_callback,
                    client_info=Implementation(name="lemon", version=__version__))
    entered = False
    try:
        async with client:
            entered = True
            yield client
    except McpConnectionError:
        raise
    except Exception as exc:  # noqa: BLE001 - every failure becomes one fixed kind
        raise classify(exc, server, "tool discovery" if entered else "handshake",
                       statuses.status) from None


async def list_all_tools(client: Any) -> list[ToolInfo]:
    """Every tool, following the cursor (at most :data:`MAX_TOOL_PAGES` pages)."""
    tools: list[ToolInfo] = []
    cursor = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(ToolInfo(t.name, t.description) for t in page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def probe_async(server: McpServer, ctx: LemonContext, *,
                      errlog: TextIO | None = None) -> ProbeResult:
    """:func:`probe` in a running event loop; the whole session (start, handshake, listing,
    close) must finish within the entry's ready timeout plus its request timeout."""
    import anyio

    started = time.perf_counter()
    deadline = ready_timeout(server) + request_timeout(server)
    try:
        with anyio.fail_after(deadline):
            async with connect(server, ctx, errlog=errlog) as client:
                tools = await list_all_tools(client)
                info = client.server_info
                caps = client.server_capabilities
                version = client.protocol_version
    except TimeoutError:
        raise McpConnectionError(server.name, server.transport, "timeout",
                                 seconds=deadline) from None
    present = tuple(field for field in ("tools", "resources", "prompts", "logging",
                                        "completions") if getattr(caps, field, None))
    return ProbeResult(server.name, server.transport, version,
                       info.name if info else None, info.version if info else None,
                       tuple(tools), present, (time.perf_counter() - started) * 1000)


def probe(server: McpServer, ctx: LemonContext, *, errlog: TextIO | None = None) -> ProbeResult:
    """Connect, handshake, list the tools, close (see the module docstring)."""
    import anyio

    from lemon_core.mcp.servers.sdk import McpSdkMissing, require_sdk

    try:
        require_sdk()
    except McpSdkMissing:
        raise McpConnectionError(server.name, server.transport, "sdk_missing") from None
    return anyio.run(lambda: probe_async(server, ctx, errlog=errlog))


__all__ = ["MAX_TOOL_PAGES", "ProbeResult", "ToolInfo", "classify", "connect",
           "list_all_tools", "probe", "probe_async"]
