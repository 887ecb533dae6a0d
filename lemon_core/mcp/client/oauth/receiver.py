"""The localhost redirect receiver of an interactive (PKCE) login.

A small HTTP server bound to the loopback address and port of the entry's ``redirect_uri``
(never another interface), started before the authorization URL is handed out and closed as
soon as one redirect to the expected path arrived (or the wait ends). It answers the browser
with a short fixed page and hands the ``code``, ``state`` and ``iss`` parameters to the SDK,
which checks the state. Nothing it receives is printed.
"""

from __future__ import annotations

import http.server
import socket
import threading
from urllib.parse import parse_qs, urlsplit

PAGE = (b"<!doctype html><meta charset=utf-8><title>lemon</title>"
        b"<p>lemon received the authorization. You can close this window.</p>")


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, port: int, path: str) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), _Handler)
        self.expected_path = path
        self.params: dict[str, str] | None = None
        self.arrived = threading.Event()


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, *args: object) -> None:  # never log a code or a state
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != self.server.expected_path or self.server.arrived.is_set():
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        query = parse_qs(parts.query)
        self.server.params = {k: v[0] for k, v in query.items() if v}
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)
        self.server.arrived.set()


class RedirectReceiver:
    """``start()`` binds (raising ``OSError`` when the port is taken), ``wait()`` returns the
    redirect's query parameters, ``close()`` stops listening."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.host, self.port, self.path = host, port, path
        self._server: _Server | None = None

    def start(self) -> None:
        self._server = _Server(self.host, self.port, self.path)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                         daemon=True).start()

    async def wait(self) -> dict[str, str]:
        import anyio

        server = self._server
        assert server is not None, "start() first"
        while not server.arrived.is_set():
            await anyio.sleep(0.05)
        return dict(server.params or {})

    def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()


__all__ = ["RedirectReceiver"]
