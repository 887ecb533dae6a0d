"""What an entry's ``oauth`` block (and its ``persist_oauth_tokens`` / ``oauth_token_secret``
fields) asks for, resolved: the flow, the client, the scope, the redirect, where tokens live.

The schema (:mod:`lemon_core.mcp.schema`) has already checked the types. Here:
``client_secret_secret`` names the environment variable holding the client secret (the secret
never sits in the file); ``oauth.token_secret`` (or the entry's ``oauth_token_secret``) names the
token cache slot, so entries sharing a slot share tokens; without one the slot is derived from
the server's name, URL, client id and flow. ``persist_oauth_tokens: false`` keeps tokens in
memory only.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import urlsplit

import attrs

from lemon_core.context import LemonContext
from lemon_core.mcp.client.oauth.errors import OAuthError
from lemon_core.mcp.names import show
from lemon_core.models import McpServer

PKCE = "authorization_code_pkce"
CLIENT_CREDENTIALS = "client_credentials"
#: How long an interactive login waits for the redirect, unless authorization_timeout_ms says.
DEFAULT_AUTHORIZATION_TIMEOUT_MS = 300_000
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@attrs.frozen
class OAuthSettings:
    server: str | None
    url: str
    flow: str
    client_id: str
    client_secret: str | None = attrs.field(default=None, repr=False)
    token_auth_method: str = "client_secret_basic"
    scope: str | None = None
    issuer: str | None = None
    redirect_uri: str | None = None
    authorization_timeout: float = DEFAULT_AUTHORIZATION_TIMEOUT_MS / 1000
    persist: bool = True
    slot: str = ""

    @property
    def interactive(self) -> bool:
        return self.flow == PKCE


def _scope(oauth: dict[str, Any]) -> str | None:
    words = [*(oauth.get("scope") or "").split(), *(oauth.get("scopes") or ())]
    return " ".join(dict.fromkeys(words)) or None


def _secret(server: McpServer, oauth: dict[str, Any], ctx: LemonContext) -> str | None:
    if "client_secret" in oauth:
        return str(oauth["client_secret"])
    variable = oauth.get("client_secret_secret")
    if variable is None:
        return None
    value = ctx.getenv(str(variable))
    if value is None:
        raise OAuthError(server.name, "auth_config",
                         f"oauth.client_secret_secret names the environment variable "
                         f"{show(str(variable))}, which is not set; export it and try again")
    return value


def loopback_redirect(name: str | None, uri: str) -> tuple[str, int, str]:
    """``(host, port, path)`` of a ``http://127.0.0.1:PORT/path`` (or localhost, [::1])
    redirect URI; anything else is refused (lemon only receives redirects on this machine)."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        port, parts = None, None
    if parts is None or parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS or \
            not port:
        raise OAuthError(name, "auth_config",
                         "oauth.redirect_uri must be http://127.0.0.1:PORT/PATH (or localhost) "
                         "with an explicit port: lemon receives the redirect on this machine")
    host = "::1" if parts.hostname == "::1" else "127.0.0.1"
    return host, port, parts.path or "/"


def _slot(server: McpServer, oauth: dict[str, Any], flow: str) -> str:
    named = oauth.get("token_secret") or server.extra.get("oauth_token_secret")
    if isinstance(named, str) and named:
        return "slot:" + named
    return "entry:" + json.dumps([server.name, server.url, oauth.get("client_id"), flow])


def settings_for(server: McpServer, ctx: LemonContext) -> OAuthSettings | None:
    """The resolved settings of an ``http`` entry with an ``oauth`` block, else None."""
    oauth = server.oauth
    if server.transport != "http" or not oauth:
        return None
    flow = str(oauth.get("flow") or CLIENT_CREDENTIALS)
    redirect = oauth.get("redirect_uri")
    if flow == PKCE:
        loopback_redirect(server.name, str(redirect))
    timeout_ms = oauth.get("authorization_timeout_ms") or DEFAULT_AUTHORIZATION_TIMEOUT_MS
    issuer = oauth.get("issuer")
    persist = server.extra.get("persist_oauth_tokens", True)
    return OAuthSettings(
        server=server.name, url=server.url or "", flow=flow, client_id=str(oauth["client_id"]),
        client_secret=_secret(server, oauth, ctx),
        token_auth_method=str(oauth.get("token_auth_method") or "client_secret_basic"),
        scope=_scope(oauth), issuer=issuer if isinstance(issuer, str) and issuer else None,
        redirect_uri=str(redirect) if redirect else None,
        authorization_timeout=int(timeout_ms) / 1000, persist=persist is not False,
        slot=_slot(server, oauth, flow))


def slot_file_name(slot: str) -> str:
    """The cache file's name for ``slot`` (a digest: any slot name makes a safe file name)."""
    return hashlib.sha256(slot.encode()).hexdigest()[:32] + ".json"


__all__ = ["CLIENT_CREDENTIALS", "DEFAULT_AUTHORIZATION_TIMEOUT_MS", "PKCE", "OAuthSettings",
           "loopback_redirect", "settings_for", "slot_file_name"]
