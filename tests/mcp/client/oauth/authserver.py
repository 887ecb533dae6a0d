"""A small OAuth authorization server on 127.0.0.1 for the OAuth client tests (real HTTP).

It serves RFC 8414 metadata, a token endpoint (client credentials with ``client_secret_post``
or ``client_secret_basic``, refresh tokens with or without rotation, authorization code with
PKCE S256), an authorization endpoint that redirects straight back with a code (the test plays
the user who consents) and an introspection endpoint the resource server asks. Every request is
recorded (path, headers, form) so a test can check what the client sent; knobs make it slow
or its metadata oversized.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import attrs

CLIENT_ID = "lemon-client"
CLIENT_SECRET = "CLIENT-SECRET-7777"
PUBLIC_CLIENT = "lemon-public"


@attrs.define
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    form: dict[str, str]


@attrs.define
class AuthServerState:
    """What the server does and what it saw; tests change the knobs between requests."""

    url: str = ""
    #: Seconds an access token lives.
    expires_in: int = 3600
    #: Issue a refresh token with client-credentials and authorization-code grants.
    issue_refresh: bool = True
    #: A refresh response carries a new refresh token (rotation); the old one dies.
    rotate: bool = True
    #: Expected client authentication at the token endpoint ("client_secret_post"/"_basic").
    auth_method: str = "client_secret_post"
    #: Seconds to wait before answering a request to a path (a slow or stuck server).
    delays: dict[str, float] = attrs.Factory(dict)
    #: Bytes of padding added to the metadata document (an oversized answer).
    metadata_padding: int = 0
    #: Send the metadata gzip-compressed (with the padding: a small body that expands).
    metadata_gzip: bool = False
    seen: list[Seen] = attrs.Factory(list)
    access: dict[str, float] = attrs.Factory(dict)  # token -> expiry (time.time())
    refresh: set[str] = attrs.Factory(set)
    codes: dict[str, tuple[str, str]] = attrs.Factory(dict)  # code -> (challenge, redirect)
    grants: list[str] = attrs.Factory(list)  # grant types served, in order

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]

    def issue(self) -> dict[str, Any]:
        token = "AT-" + secrets.token_hex(8)
        self.access[token] = time.time() + self.expires_in
        body: dict[str, Any] = {"access_token": token, "token_type": "Bearer",
                                "expires_in": self.expires_in}
        return body

    def new_refresh(self) -> str:
        token = "RT-" + secrets.token_hex(8)
        self.refresh.add(token)
        return token

    def expire_access(self) -> None:
        for token in self.access:
            self.access[token] = 0.0


def _client_ok(state: AuthServerState, headers: dict[str, str], form: dict[str, str]) -> bool:
    if state.auth_method == "client_secret_basic":
        value = headers.get("authorization", "")
        if not value.startswith("Basic ") or "client_secret" in form:
            return False
        user, _, password = base64.b64decode(value[6:]).decode().partition(":")
        return (unquote(user), unquote(password)) == (CLIENT_ID, CLIENT_SECRET)
    return form.get("client_id") == CLIENT_ID and form.get("client_secret") == CLIENT_SECRET


class _Handler(http.server.BaseHTTPRequestHandler):
    state: AuthServerState

    def log_message(self, *args: object) -> None:
        pass

    def _json(self, status: int, body: dict[str, Any], *, gzip: bool = False) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        if gzip:
            import gzip as gz

            data = gz.compress(data)
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self, form: dict[str, str]) -> str:
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.state.seen.append(Seen(self.command, path, headers, form))
        time.sleep(self.state.delays.get(path, 0.0))
        return path

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        path = self._record(query)
        state = self.state
        if path == "/.well-known/oauth-authorization-server":
            metadata = {
                "issuer": state.url,
                "authorization_endpoint": f"{state.url}/authorize",
                "token_endpoint": f"{state.url}/token",
                "introspection_endpoint": f"{state.url}/introspect",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "client_credentials",
                                          "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_post",
                                                          "client_secret_basic", "none"],
                "code_challenge_methods_supported": ["S256"],
            }
            if state.metadata_padding:
                metadata["padding"] = "0" * state.metadata_padding
            self._json(200, metadata, gzip=state.metadata_gzip)
        elif path == "/authorize":
            if query.get("client_id") != PUBLIC_CLIENT or \
                    query.get("code_challenge_method") != "S256":
                self._json(400, {"error": "invalid_request"})
                return
            code = "CODE-" + secrets.token_hex(8)
            state.codes[code] = (query["code_challenge"], query["redirect_uri"])
            back = {"code": code, "state": query.get("state", "")}
            self.send_response(302)
            self.send_header("Location", f"{query['redirect_uri']}?{urlencode(back)}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._json(404, {"error": "not_found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        form = {k: v[0] for k, v in parse_qs(raw).items()}
        path = self._record(form)
        if path == "/token":
            self._token(form)
        elif path == "/introspect":
            expiry = self.state.access.get(form.get("token", ""))
            active = expiry is not None and expiry > time.time()
            self._json(200, {"active": active, "client_id": CLIENT_ID, "scope": "tools",
                             "exp": int(expiry or 0)} if active else {"active": False})
        else:
            self._json(404, {"error": "not_found"})

    def _token(self, form: dict[str, str]) -> None:
        state = self.state
        grant = form.get("grant_type", "")
        state.grants.append(grant)
        headers = {k.lower(): v for k, v in self.headers.items()}
        if grant == "authorization_code":
            challenge, redirect = state.codes.pop(form.get("code", ""), ("", ""))
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
            if not challenge or digest.decode().rstrip("=") != challenge or \
                    form.get("redirect_uri") != redirect or form.get("client_id") != PUBLIC_CLIENT:
                self._json(400, {"error": "invalid_grant"})
                return
            body = state.issue()
        elif grant == "client_credentials":
            if not _client_ok(state, headers, form):
                self._json(401, {"error": "invalid_client"})
                return
            body = state.issue()
        elif grant == "refresh_token":
            public = form.get("client_id") == PUBLIC_CLIENT and "client_secret" not in form \
                and "authorization" not in headers
            if not public and not _client_ok(state, headers, form):
                self._json(401, {"error": "invalid_client"})
                return
            old = form.get("refresh_token", "")
            if old not in state.refresh:
                self._json(400, {"error": "invalid_grant"})
                return
            body = state.issue()
            if state.rotate:
                state.refresh.discard(old)
                body["refresh_token"] = state.new_refresh()
            self._json(200, body)
            return
        else:
            self._json(400, {"error": "unsupported_grant_type"})
            return
        if state.issue_refresh:
            body["refresh_token"] = state.new_refresh()
        self._json(200, body)


@contextmanager
def auth_server() -> Iterator[AuthServerState]:
    """A running authorization server; ``state.url`` is its issuer (no trailing slash)."""
    state = AuthServerState()
    handler = type("Handler", (_Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
