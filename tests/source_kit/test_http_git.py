"""The http.client git client keeps one connection alive, and never reads one answer's
leftover bytes as the next answer (against an HTTP/1.1 server on 127.0.0.1)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from lemon_core.source_kit.http_git import StdlibHttpGitClient

BODY = b"0123456789" * 100


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    connections = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive

    def setup(self) -> None:
        super().setup()
        type(self.server).connections += 1  # type: ignore[attr-defined]

    def do_GET(self) -> None:
        body = self.path.encode() + b":" + BODY
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    class Counting(_Server):
        connections = 0

    httpd = Counting(("127.0.0.1", 0), _Handler)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                     daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _get(client: StdlibHttpGitClient, url: str, *, read_all: bool) -> bytes:
    response, read = client._http_request(url)
    data = read(-1) if read_all else read(7)
    response.close()
    return data


def test_answers_read_to_their_end_share_one_connection(server: _Server) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    client = StdlibHttpGitClient(base)
    try:
        assert _get(client, base + "a", read_all=True) == b"/a:" + BODY
        assert _get(client, base + "b", read_all=True) == b"/b:" + BODY
    finally:
        client.close()
    assert type(server).connections == 1


def test_an_answer_closed_early_never_leaks_into_the_next(server: _Server) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    client = StdlibHttpGitClient(base)
    try:
        assert _get(client, base + "a", read_all=False) == b"/a:0123"
        assert _get(client, base + "b", read_all=True) == b"/b:" + BODY
    finally:
        client.close()
    assert type(server).connections == 2
