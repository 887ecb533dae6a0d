"""Each OAuth request (metadata, token) gets its own deadline and a cap on its answer's size.

The SDK's auth flow builds those requests itself (``httpx2.Request`` objects, not through the
client's ``build_request``), so they carry no timeout: httpx2 then waits on them forever, and
only the deadline of the whole MCP connection (or of ``lemon mcp login``: minutes) ended a
stuck authorization server. httpx2 also reads their answers whole before the flow sees them.

So the providers (:mod:`.providers`) :func:`mark` every request of the flow other than the MCP
request itself, and the Streamable HTTP client of an entry with an ``oauth`` block sends
through :class:`BoundedAuthRequests`: a marked request must be answered completely (headers and
body) within half the entry's request timeout (``timeout_ms``, default 10 s, so 5 s), and its
body may be at most :data:`MAX_AUTH_RESPONSE_BYTES`; otherwise the connection fails with the
fixed kind ``auth_request_timeout`` or ``auth_response_too_large`` (:mod:`.errors`), which names
the kind of request, never a URL or anything the server sent. MCP requests pass through
untouched.

Why half: the flow runs inside the MCP request that met the 401, and that request waits at most
``timeout_ms`` in all. A stuck metadata or token request must fail before it does, or the
person would read "the server answered HTTP 401" (the MCP request's own failure) instead of
what was stuck. During an interactive login, whose MCP request waits for the person, the
deadline still holds each request of the flow to a few seconds.
"""

from __future__ import annotations

from typing import Any

from lemon_core.mcp.client.oauth.errors import OAuthError

#: The most of one metadata or token answer lemon reads (real ones are a few KiB).
MAX_AUTH_RESPONSE_BYTES = 1024 * 1024
#: Headers that described the body as it came over the wire.
_BODY_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
#: The request extension that marks a request of the OAuth flow (its value: what it is for).
MARK = "lemon_oauth_request"


def mark(request: Any) -> None:
    """Mark ``request`` as one of the OAuth flow's own (a metadata GET, or a token POST)."""
    what = "metadata" if request.method == "GET" else "token"
    request.extensions = {**request.extensions, MARK: what}


def auth_request_timeout(request_timeout_s: float) -> float:
    """Each OAuth request's deadline for an entry whose MCP requests wait at most
    ``request_timeout_s`` (see the module docstring)."""
    return request_timeout_s / 2


def bounded_transport(name: str | None, request_timeout_s: float) -> Any:
    """The HTTP transport for an entry with an ``oauth`` block: what ``httpx2.AsyncClient(
    trust_env=False)`` would build, wrapped in :class:`BoundedAuthRequests`."""
    import httpx2

    return BoundedAuthRequests(httpx2.AsyncHTTPTransport(trust_env=False), name,
                               auth_request_timeout(request_timeout_s))


class BoundedAuthRequests:
    """An ``httpx2.AsyncBaseTransport`` bounding the marked requests (see the module)."""

    def __init__(self, inner: Any, name: str | None, timeout_s: float,
                 max_bytes: int = MAX_AUTH_RESPONSE_BYTES) -> None:
        self.inner = inner
        self.name = name
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes

    async def handle_async_request(self, request: Any) -> Any:
        import anyio
        import httpx2

        what = request.extensions.get(MARK)
        if what is None:
            return await self.inner.handle_async_request(request)
        try:
            with anyio.fail_after(self.timeout_s):
                response = await self.inner.handle_async_request(request)
                try:
                    body = await self._read(response, what)
                finally:
                    await response.aclose()
        except TimeoutError:
            raise OAuthError(self.name, "auth_request_timeout",
                             f"{what} request within {self.timeout_s:g} s") from None
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in _BODY_HEADERS]  # the body is decoded now
        return httpx2.Response(response.status_code, headers=headers, content=body,
                               extensions=response.extensions)

    async def _read(self, response: Any, what: str) -> bytes:
        """The decoded body, refused past :attr:`max_bytes` (so a compressed answer cannot
        expand past it either)."""
        import httpx2

        staged = httpx2.Response(response.status_code, headers=response.headers,
                                 stream=response.stream)
        parts: list[bytes] = []
        size = 0
        async for chunk in staged.aiter_bytes():
            size += len(chunk)
            if size > self.max_bytes:
                limit = f"{self.max_bytes // 1024} KiB" if self.max_bytes >= 1024 else \
                    f"{self.max_bytes} bytes"
                raise OAuthError(self.name, "auth_response_too_large",
                                 f"{what} request (more than {limit})")
            parts.append(chunk)
        return b"".join(parts)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> BoundedAuthRequests:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.inner.__aexit__(*exc)


__all__ = ["MARK", "MAX_AUTH_RESPONSE_BYTES", "BoundedAuthRequests", "auth_request_timeout",
           "bounded_transport", "mark"]
