"""dulwich's smart-HTTP git client over the standard library's ``http.client``.

dulwich ships its HTTP client on urllib3, whose import alone cost about a tenth of a
``lemon skill install`` (20-25 ms of CPU: its URL and TLS helpers compile dozens of regular
expressions), for two requests (the ref advertisement and the pack). This client sends the
same requests through ``http.client``, which lemon's HTTP sources load anyway, on one kept-alive
connection, with the rules of :mod:`lemon_core.source_kit.transport`:

- redirects are followed by hand, at most :data:`~lemon_core.source_kit.transport.MAX_REDIRECTS`,
  and only within the URL's own scheme, host and port (another host is refused before any
  request reaches it);
- credentials go as Basic authorization to that origin only;
- a connection times out after ``CONNECT_TIMEOUT`` seconds, a read after ``READ_TIMEOUT``;
- every transport failure (refused, reset, cut off mid-body) is a dulwich ``GitProtocolError``
  naming its cause, which :func:`~lemon_core.source_kit.transport.git_errors` turns into
  lemon's message.

It connects directly: a URL that goes through an HTTP proxy keeps dulwich's own urllib3 client
(:func:`~lemon_core.source_kit.connect.open_client` decides).
"""

from __future__ import annotations

import base64
import http.client
from collections.abc import Callable, Iterator
from urllib.parse import quote, urljoin, urlsplit

from dulwich.client import (
    AbstractHttpGitClient,
    HTTPProxyUnauthorized,
    HTTPUnauthorized,
    default_user_agent_string,
)
from dulwich.errors import GitProtocolError, NotGitRepository

from lemon_core.source_kit.location import public_url
from lemon_core.source_kit.transport import (
    CONNECT_TIMEOUT,
    MAX_REDIRECTS,
    READ_TIMEOUT,
    Auth,
    GitSourceError,
    RedirectRefused,
    origin,
)

#: Characters left as they are in a request path (what urllib3 leaves; the rest is %-encoded).
_PATH_SAFE = "/%:@!$&'()*+,;=-._~?"


class Response:
    """What dulwich reads of an answer: ``status``, ``content_type``, ``redirect_location``
    (the final URL when a redirect moved it, else ""), ``headers`` and ``close``."""

    def __init__(self, raw: http.client.HTTPResponse, url: str, final: str) -> None:
        self.raw = raw
        self.status = raw.status
        self.headers = raw.headers
        self.content_type = raw.getheader("Content-Type")
        self.redirect_location = final if final != url else ""
        #: The body was read to its end, so the connection can carry the next request
        #: (an answer closed before that leaves bytes on it: the next one gets a new one).
        self.ended = raw.isclosed()

    def read(self, size: int | None = -1) -> bytes:
        try:
            data = self.raw.read(None if size is None or size < 0 else size)
        except (http.client.HTTPException, OSError) as exc:  # cut off mid-body
            raise GitProtocolError(f"{type(exc).__name__}: {exc}") from exc
        self.ended = self.ended or self.raw.isclosed()
        return data

    def close(self) -> None:
        self.ended = self.ended or self.raw.isclosed()
        self.raw.close()


class StdlibHttpGitClient(AbstractHttpGitClient):
    """dulwich's :class:`AbstractHttpGitClient` on ``http.client`` (see the module)."""

    def __init__(self, base_url: str, auth: Auth | None = None) -> None:
        super().__init__(base_url, dumb=False, username=auth.username if auth else None,
                         password=auth.password if auth else None)
        self._authorization = (None if auth is None else "Basic " + base64.b64encode(
            f"{auth.username}:{auth.password}".encode()).decode())
        self._origin = origin(base_url)
        self._connection: http.client.HTTPConnection | None = None
        self._last: Response | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        """The kept-alive connection to the origin; a new one when the last answer was not
        read to its end (http.client cannot send on a connection still answering)."""
        last, self._last = self._last, None
        if self._connection is not None and last is not None and not last.ended:
            self.close()
        if self._connection is None:
            scheme, host, port = self._origin
            if scheme == "https":
                import ssl

                self._connection = http.client.HTTPSConnection(
                    host, port, timeout=CONNECT_TIMEOUT, context=ssl.create_default_context())
            else:
                self._connection = http.client.HTTPConnection(host, port,
                                                              timeout=CONNECT_TIMEOUT)
        connection = self._connection
        if connection.sock is None:
            connection.connect()
            connection.sock.settimeout(READ_TIMEOUT)  # type: ignore[attr-defined]
        return connection

    def _send(self, method: str, url: str, headers: dict[str, str],
              data: bytes | Iterator[bytes] | None) -> http.client.HTTPResponse:
        parts = urlsplit(url)
        target = quote(parts.path or "/", safe=_PATH_SAFE) + (
            "?" + quote(parts.query, safe=_PATH_SAFE + "=&") if parts.query else "")
        sent = {"User-Agent": default_user_agent_string(), "Pragma": "no-cache", **headers}
        if self._authorization is not None and origin(url) == self._origin:
            sent["Authorization"] = self._authorization
        chunked = data is not None and not isinstance(data, bytes)
        if chunked:
            sent["Transfer-Encoding"] = "chunked"
        for attempt in (1, 2):
            connection = self._connect()
            try:
                connection.request(method, target, body=data, headers=sent,
                                   encode_chunked=chunked)
                return connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # a kept-alive connection the server had closed: once more on a new one
                self.close()
                if attempt == 2 or chunked:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _http_request(self, url: str, headers: dict[str, str] | None = None,
                      data: bytes | Iterator[bytes] | None = None,
                      raise_for_status: bool = True) -> tuple[Response, Callable[[int], bytes]]:
        method = "GET" if data is None else "POST"
        current = url
        try:
            for _ in range(MAX_REDIRECTS + 1):
                raw = self._send(method, current, dict(headers or {}), data)
                location = raw.getheader("Location")
                if raw.status not in (301, 302, 303, 307, 308) or not location:
                    break
                raw.read()  # to its end: the connection carries the next hop
                target = urljoin(current, location)
                if origin(target) != origin(current):
                    raise RedirectRefused(
                        f"{public_url(current)} redirected to another host "
                        f"({public_url(target)}); lemon follows redirects only within one "
                        "host: use the final URL if you trust it")
                if raw.status == 303:
                    method, data = "GET", None
                current = target
            else:
                raise GitSourceError(f"{public_url(url)}: more than {MAX_REDIRECTS} redirects")
        except (http.client.HTTPException, OSError) as exc:
            self.close()
            raise GitProtocolError(f"{type(exc).__name__}: {exc}") from exc
        response = Response(raw, url, current)
        self._last = response
        if raise_for_status:
            if raw.status == 404:
                raise NotGitRepository
            if raw.status == 401:
                raise HTTPUnauthorized(raw.getheader("WWW-Authenticate"), url)
            if raw.status == 407:
                raise HTTPProxyUnauthorized(raw.getheader("Proxy-Authenticate"), url)
            if raw.status != 200:
                raise GitProtocolError(f"unexpected http resp {raw.status} for {url}")
        return response, response.read


__all__ = ["Response", "StdlibHttpGitClient"]
