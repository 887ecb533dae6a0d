"""The SDK transport for one configured server entry (:class:`lemon_core.models.McpServer`).

- ``stdio`` (lemon's own transport, :mod:`lemon_core.mcp.client.stdio`: messages of at most
  8 MiB): the command and its argument vector (never a shell), the entry's ``env`` over the
  SDK's safe inherited environment, and its ``cwd`` (default: the requesting project; a
  relative one resolves against it). The server's stderr goes to ``errlog`` (by default
  nowhere: what a server prints may hold secrets).
- ``http`` (Streamable HTTP) and ``sse`` (legacy HTTP+SSE): the URL with the entry's headers, no
  proxy from the environment, redirects only as the SDK allows (same origin).
"""

from __future__ import annotations

import os
from typing import Any, TextIO

from lemon_core.context import LemonContext
from lemon_core.models import McpServer

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_READY_TIMEOUT_MS = 5_000


def request_timeout(server: McpServer) -> float:
    return (server.timeout_ms or DEFAULT_TIMEOUT_MS) / 1000


def ready_timeout(server: McpServer) -> float:
    return (server.ready_timeout_ms or DEFAULT_READY_TIMEOUT_MS) / 1000


def working_dir(server: McpServer, ctx: LemonContext) -> str:
    if not server.cwd:
        return str(ctx.cwd)
    return os.path.normpath(os.path.join(str(ctx.cwd), server.cwd))


class StatusRecorder:
    """The HTTP error status of the server's latest answer, if it was one (the Streamable HTTP
    transport turns it into a generic MCP error; ``lemon mcp test`` reports the status
    itself). A later success forgets it: the 401 that an OAuth flow then answered, or an
    earlier refusal, does not explain a failure that came after."""

    def __init__(self) -> None:
        self.status: int | None = None

    async def __call__(self, response: Any) -> None:
        self.status = response.status_code if response.status_code >= 400 else None


def transport_for(server: McpServer, ctx: LemonContext, *, errlog: TextIO | None = None,
                  statuses: StatusRecorder | None = None) -> Any:
    """An SDK ``Transport`` (an async context manager of the two streams) for ``server``."""
    if server.transport == "stdio":
        from lemon_core.mcp.client.stdio import StdioTransport

        return StdioTransport(server.command or "", list(server.args),
                              env=dict(server.env) or None, cwd=working_dir(server, ctx),
                              errlog=errlog if errlog is not None else _devnull(),
                              name=server.name)
    import httpx2

    timeout = request_timeout(server)
    headers = dict(server.headers)
    hooks = {"response": [statuses]} if statuses is not None else None
    if server.transport == "sse":
        from mcp.client.sse import sse_client

        def factory(headers: Any = None, timeout: Any = None, auth: Any = None) -> Any:
            return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth,
                                      trust_env=False, event_hooks=hooks)

        return sse_client(server.url or "", headers=headers, timeout=timeout,
                          sse_read_timeout=max(timeout, 30.0), httpx_client_factory=factory)
    from mcp.client.streamable_http import streamable_http_client

    from lemon_core.mcp.client.oauth.build import auth_for
    from lemon_core.mcp.client.oauth.limits import bounded_transport

    auth = auth_for(server, ctx, request_timeout_s=timeout)  # None: no oauth block
    # with OAuth, each metadata and token request gets its own deadline and size cap
    bounded = None if auth is None else bounded_transport(server.name, timeout)
    client = httpx2.AsyncClient(headers=headers, trust_env=False, event_hooks=hooks,
                                timeout=httpx2.Timeout(timeout, read=max(timeout, 30.0)),
                                auth=auth, transport=bounded)
    return _owning(client, streamable_http_client(server.url or "", http_client=client))


class _owning:
    """The Streamable HTTP transport, closing the HTTP client it was given afterwards."""

    def __init__(self, client: Any, transport: Any) -> None:
        self._client = client
        self._transport = transport

    async def __aenter__(self) -> Any:
        await self._client.__aenter__()
        try:
            return await self._transport.__aenter__()
        except BaseException:
            await self._client.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: object) -> Any:
        try:
            return await self._transport.__aexit__(*exc)
        finally:
            await self._client.__aexit__(None, None, None)


_DEVNULL: list[TextIO] = []


def _devnull() -> TextIO:
    """One null sink for every stdio server's stderr, opened once per process (a file per
    connection would leak one descriptor each)."""
    if not _DEVNULL:
        _DEVNULL.append(open(os.devnull, "w"))
    return _DEVNULL[0]


__all__ = ["DEFAULT_READY_TIMEOUT_MS", "DEFAULT_TIMEOUT_MS", "StatusRecorder", "ready_timeout",
           "request_timeout", "transport_for", "working_dir"]
