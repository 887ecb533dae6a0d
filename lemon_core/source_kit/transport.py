"""lemon's rules for talking to a git server, and the errors of a failed fetch.

:mod:`lemon_core.source_kit.connect` opens the client; these are the rules every client keeps:

- HTTP(S) redirects are followed only within the same origin (scheme, host and port); a
  redirect to another host is refused before any request reaches it.
- Credentials (an :class:`Auth`, or ``user:pass@`` in the URL) travel as an Authorization header
  to the URL's own origin only, and never appear in a message (:func:`git_errors` redacts).
- A token is never sent over plain ``http://`` except to a loopback address.
- Every dulwich or network exception becomes a :class:`GitSourceError` saying what to do.
"""

from __future__ import annotations

import contextlib
import ipaddress
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import attrs

from lemon_core.errors import LemonError
from lemon_core.source_kit.location import public_url, redact

#: Seconds to wait for a connection, and for each read, before giving up.
CONNECT_TIMEOUT = 15.0
READ_TIMEOUT = 60.0
MAX_REDIRECTS = 5


class GitSourceError(LemonError):
    """Fetching from a git repository failed (unreachable, missing ref, refused, cut off)."""


class RedirectRefused(GitSourceError):
    """The server redirected to another host."""


@attrs.frozen
class Auth:
    """HTTP credentials for one origin. Never printed: the repr hides the password."""

    username: str
    password: str = attrs.field(repr=False)


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def token_auth(url: str, token: str | None, username: str = "x-access-token") -> Auth | None:
    """``Auth`` for ``token`` if it may be sent to ``url``: over https, or plain http to a
    loopback address (tests, local mirrors); None otherwise."""
    if not token:
        return None
    parts = urlsplit(url)
    if parts.scheme == "https" or (parts.scheme == "http" and is_loopback(parts.hostname)):
        return Auth(username, token)
    return None


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, the port filled in for http and https."""
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    return (parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default)


@contextlib.contextmanager
def git_errors(url: str, secrets: tuple[str, ...] = ()) -> Iterator[None]:
    """Turn whatever dulwich or the network raises into a GitSourceError about ``url``,
    with every credential taken out of the message."""
    from dulwich.client import HTTPProxyUnauthorized, HTTPUnauthorized
    from dulwich.errors import GitProtocolError, HangupException, NotGitRepository

    shown = public_url(url)

    def clean(exc: BaseException) -> str:
        return redact(str(exc) or type(exc).__name__, secrets)

    try:
        yield
    except GitSourceError as exc:
        raise type(exc)(redact(str(exc), secrets)) from None
    except LemonError:
        raise
    except HTTPUnauthorized:
        raise GitSourceError(_unauthorized(url, shown, secrets)) from None
    except HTTPProxyUnauthorized:
        raise GitSourceError(f"the HTTP proxy asked for credentials while fetching {shown}: "
                             "check https_proxy") from None
    except NotGitRepository:
        raise GitSourceError(f"no git repository at {shown}: check the URL") from None
    except HangupException as exc:
        said = _last_line(exc.stderr_lines, secrets)
        if said:  # ssh (or the server's git) said why: a host, a key, a missing repository
            raise GitSourceError(f"cannot fetch {shown}: the remote side said: {said}; check "
                                 "the host, the path and your ssh access") from None
        raise GitSourceError(
            f"{shown} closed the connection before the transfer finished; try again") from None
    except GitProtocolError as exc:
        message = clean(exc)
        reason = _unreachable_reason(message)
        if reason:
            raise GitSourceError(f"cannot reach {shown} ({reason}): check the URL and the "
                                 "network") from None
        if _cut_off(message):
            raise GitSourceError(f"{shown} closed the connection before the transfer "
                                 "finished; try again") from None
        raise GitSourceError(f"git transfer from {shown} failed: {message}") from None
    except (OSError, EOFError, ValueError, AssertionError, KeyError) as exc:
        raise GitSourceError(f"git transfer from {shown} failed: {clean(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - dulwich raises many kinds; none may escape with a credential
        raise GitSourceError(f"git transfer from {shown} failed ({type(exc).__name__}): "
                             f"{clean(exc)}") from None


def _last_line(lines: Any, secrets: tuple[str, ...]) -> str:
    """The last non-empty line of a remote's stderr (credentials out; plain text, which the
    caller escapes to show), or ""."""
    for raw in reversed(list(lines or ())):
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        text = text.strip()
        if text:
            return redact(text[:300], secrets)
    return ""


def _unauthorized(url: str, shown: str, secrets: tuple[str, ...]) -> str:
    """What an HTTP 401 means here, and how to give the credentials (never how they were)."""
    host = urlsplit(url).hostname or "HOST"
    if urlsplit(url).username is not None or any(secrets):
        return (f"{shown} refused the credentials lemon sent (HTTP 401): check the user name "
                f"and password or token for {host}")
    return (f"{shown} asked for credentials (HTTP 401) and lemon had none to send: the "
            "repository is private or does not exist. lemon never records a password typed "
            "into a URL, so an update, outdated check or sync of such an install has none: "
            f"put 'machine {host} login USER password SECRET' in ~/.netrc (or the file $NETRC "
            "names), or give the URL with its credentials again; for GitHub set GITHUB_TOKEN")


def _unreachable_reason(message: str) -> str | None:
    for needle, reason in (("Connection refused", "connection refused"),
                           ("Name or service not known", "unknown host"),
                           ("nodename nor servname", "unknown host"),
                           ("Temporary failure in name resolution", "unknown host"),
                           ("timed out", "timed out"), ("Network is unreachable", "no route"),
                           ("CERTIFICATE_VERIFY_FAILED", "TLS certificate not trusted"),
                           ("NewConnectionError", "connection failed")):
        if needle in message:
            return reason
    return None


def _cut_off(message: str) -> bool:
    return any(needle in message for needle in (
        "does not match length prefix", "IncompleteRead", "unexpected EOF", "Connection broken",
        "Protocol error", "closed connection", "ProtocolError"))
