"""Servers the client tests start on 127.0.0.1: the SDK's own (Streamable HTTP, SSE) in a
subprocess, and a plain HTTP server that answers 401 to everything."""

from __future__ import annotations

import http.server
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the test server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the test server did not start")


@contextmanager
def sdk_server(transport: str, marker: Path) -> Iterator[str]:
    """The URL of an SDK server over ``streamable-http`` or ``sse``."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(HERE / "sdk_server.py"), transport, str(port),
                             str(marker)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for(port, proc)
        path = "/mcp" if transport == "streamable-http" else "/sse"
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:  # type: ignore[type-arg]
    """End a server the test started: SIGTERM, then SIGKILL after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class _Refuse(http.server.BaseHTTPRequestHandler):
    def _deny(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Bearer realm="test"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_DELETE = _deny

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def unauthorized_server() -> Iterator[str]:
    """The URL of an HTTP server answering 401 to every request."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        server.shutdown()
        server.server_close()
