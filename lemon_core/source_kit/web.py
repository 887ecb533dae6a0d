"""Bounded HTTP GET for source plugins (the registry, the Hermes catalog).

:func:`get` fetches one URL with a timeout and a cap on the body (read up to ``max_bytes + 1``
whatever ``Content-Length`` says), follows at most :data:`MAX_REDIRECTS` redirects by hand and
only within the same scheme, host and port (a redirect to another host is refused: a registry
cannot hand the download to a server the user did not name), and turns every failure into a
:class:`WebError` with the URL (credentials taken out) and what to do. Proxies come from the
context's ``https_proxy``/``http_proxy``, never for a loopback host or one in ``no_proxy``.
Credentials come from ``user:password@`` in the URL, else from the context's netrc file for a
request without an Authorization header of its own (as for git); they are never shown.
:func:`get_json` parses the body with :mod:`lemon_core.jsondata`'s bounds.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import LemonError

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

MAX_REDIRECTS = 5
DEFAULT_TIMEOUT = 20.0
#: The default body cap (8 MiB); catalogs ask for more, single files for their own limit.
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
USER_AGENT = "lemon-skills (+https://github.com/lemon-skills)"


class WebError(LemonError):
    """A GET failed. ``status`` is the HTTP status when the server answered, else None."""

    def __init__(self, message: str, *, url: str, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


@attrs.frozen
class Response:
    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes


def shown(url: str) -> str:
    """``url`` without its user information (credentials) or fragment, for messages."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def check_url(url: str, what: str = "URL") -> urllib.parse.SplitResult:
    """The parts of an ``http(s)`` URL with a host; a :class:`WebError` otherwise."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebError(f"the {what} {shown(url)!r} must be an http:// or https:// URL with a host",
                       url=shown(url))
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise WebError(f"the {what} holds a space or a control character", url=shown(url))
    return parts


def _origin(parts: urllib.parse.SplitResult) -> tuple[str, str, int]:
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _proxies(ctx: LemonContext | None, host: str) -> dict[str, str]:
    if ctx is None or _is_loopback(host):
        return {}
    env = {k.lower(): v for k, v in ctx.env.items() if v}
    no_proxy = [h.strip().lstrip(".").lower() for h in env.get("no_proxy", "").split(",")]
    if "*" in no_proxy or any(h and (host == h or host.endswith("." + h)) for h in no_proxy):
        return {}
    return {scheme: env[f"{scheme}_proxy"] for scheme in ("http", "https")
            if f"{scheme}_proxy" in env}


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # the 3xx reaches get() as an HTTPError, which follows it by hand


def _request(url: str, headers: Mapping[str, str],
             ctx: LemonContext | None) -> tuple[str, dict[str, str]]:
    """The URL to ask (its user information taken out) and the headers to send. Credentials:
    ``user:password@`` in the URL, else, when the caller sends no Authorization of its own,
    the netrc entry of the host (``~/.netrc`` or ``$NETRC``, as git and gh use; only over
    https or plain http to a loopback host), as Basic authorization."""
    parts = urllib.parse.urlsplit(url)
    sent = {"User-Agent": USER_AGENT, **headers}
    if parts.username is not None:
        sent.setdefault("Authorization", _basic(urllib.parse.unquote(parts.username),
                                                urllib.parse.unquote(parts.password or "")))
        url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    elif ctx is not None and not any(k.lower() == "authorization" for k in sent):
        from lemon_core.source_kit.netrc import netrc_auth

        auth = netrc_auth(url, ctx.home, ctx.env)
        if auth is not None:
            sent["Authorization"] = _basic(auth.username, auth.password)
    return url, sent


def _open_once(url: str, sent: Mapping[str, str], timeout: float,
               ctx: LemonContext | None) -> tuple[int, Mapping[str, str], Any]:
    parts = urllib.parse.urlsplit(url)
    opener = urllib.request.build_opener(
        urllib.request.ProxyHandler(_proxies(ctx, (parts.hostname or "").lower())), _NoRedirect)
    request = urllib.request.Request(url, headers=dict(sent))
    try:
        response = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers or {}), exc
    return response.status, dict(response.headers), response


def _basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def _unauthorized(url: str, sent: bool) -> str:
    """What an HTTP 401 means here and how to give credentials (never what was sent)."""
    host = urllib.parse.urlsplit(url).hostname or "HOST"
    if sent:
        return (f"GET {shown(url)}: HTTP 401: the server refused the credentials lemon sent; "
                f"check the user name and password or token for {host}")
    return (f"GET {shown(url)}: HTTP 401: the server asked for credentials and lemon had none "
            f"to send; put 'machine {host} login USER password SECRET' in ~/.netrc (or the "
            "file $NETRC names)")


def _read(stream: Any, max_bytes: int, url: str, headers: Mapping[str, str]) -> bytes:
    declared = {k.lower(): v for k, v in headers.items()}.get("content-length", "")
    try:
        body = stream.read(max_bytes + 1)
    except (http.client.IncompleteRead, ConnectionError, OSError) as exc:
        raise WebError(f"GET {shown(url)}: the connection dropped while reading the answer "
                       f"({type(exc).__name__}); try again", url=shown(url)) from None
    finally:
        stream.close()
    if len(body) > max_bytes:
        raise WebError(f"GET {shown(url)}: the answer is larger than {max_bytes} bytes; "
                       "refused", url=shown(url))
    if declared.isdigit() and len(body) < int(declared):  # the server closed early
        raise WebError(f"GET {shown(url)}: the connection dropped while reading the answer "
                       f"({len(body)} of {declared} bytes); try again", url=shown(url))
    return body


def get(url: str, *, ctx: LemonContext | None = None, headers: Mapping[str, str] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES, timeout: float = DEFAULT_TIMEOUT,
        ok: tuple[int, ...] = (200,)) -> Response:
    """GET ``url``; the answer when its status is in ``ok``.

    :raises WebError: another status (``status`` set), a redirect elsewhere or past
        :data:`MAX_REDIRECTS`, a timeout, an unreachable host, a body over ``max_bytes``.
        ``headers`` (tokens) never appear in a message.
    """
    start = check_url(url)
    current = url
    for _hop in range(MAX_REDIRECTS + 1):
        asked, sent = _request(current, headers or {}, ctx)
        try:
            status, answer_headers, stream = _open_once(asked, sent, timeout, ctx)
        except TimeoutError:
            raise WebError(f"GET {shown(current)}: no answer within {timeout:g} s; try again "
                           "later", url=shown(current)) from None
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise WebError(f"GET {shown(current)}: cannot reach the server ({reason}); check "
                           "the URL and the network", url=shown(current)) from None
        if status in (301, 302, 303, 307, 308):
            stream.close()
            location = answer_headers.get("Location") or answer_headers.get("location")
            if not location:
                raise WebError(f"GET {shown(current)}: a redirect without a Location",
                               url=shown(current), status=status)
            target = urllib.parse.urljoin(current, location)
            if _origin(urllib.parse.urlsplit(target)) != _origin(start):
                raise WebError(f"GET {shown(current)}: refused a redirect to another host "
                               f"({shown(target)}); only the server named may answer",
                               url=shown(current), status=status)
            current = target
            continue
        body = _read(stream, max_bytes, current, answer_headers)
        if status == 401 and status not in ok:
            sent_any = any(k.lower() == "authorization" for k in sent)
            raise WebError(_unauthorized(current, sent_any), url=shown(current), status=status)
        if status not in ok:
            raise WebError(f"GET {shown(current)}: HTTP {status}", url=shown(current),
                           status=status)
        return Response(current, status, answer_headers, body)
    raise WebError(f"GET {shown(url)}: more than {MAX_REDIRECTS} redirects", url=shown(url))


def get_json(url: str, **options: Any) -> Any:
    """:func:`get`, then the body parsed as bounded JSON (a :class:`WebError` if it is not)."""
    from lemon_core.fsio.read import FileProblem
    from lemon_core.jsondata import loads

    response = get(url, **options)
    try:
        return loads(response.body)
    except FileProblem as exc:
        raise WebError(f"GET {shown(response.url)}: the answer is not usable JSON "
                       f"({exc.message})", url=shown(response.url)) from None


__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_TIMEOUT", "MAX_REDIRECTS", "Response", "WebError",
           "check_url", "get", "get_json", "shown"]
