"""A small HTTP server on 127.0.0.1 for source tests: a skills registry, a Hermes-shaped
repository, or any set of routes.

``WebServer`` serves ``routes`` (path with query -> :class:`Answer`, or a callable taking the
request path and returning one) in a thread; ``requests`` records each path asked for. Helpers:

- ``registry(server, skills)``: the registry API of the reference, ``GET /search?q=`` ->
  ``{"skills": [{"ref", "name", "description"}]}`` and ``GET /skills/<ref>`` -> the record
  (``clone_url``, ``git_ref``, ``commit``, ``subdirectory``...), from ``{ref: record}``;
- ``hermes(server, files, ref="main", commit=...)``: a GitHub-shaped Hermes repository:
  ``/api/commits/<ref>``, ``/api/git/trees/<commit>?recursive=1`` and
  ``/raw/<commit>/<path>``, from ``{repository path: bytes}``.

Misbehaviour on purpose: an :class:`Answer` may redirect (``status=302`` and a ``Location``),
hang (``delay``), claim a length and close early (``truncate``), or be huge; ``auth = (user,
password)`` answers 401 to any request without that Basic authorization, and
``authorizations`` records the Authorization header of each request.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import pytest


@attrs.frozen
class Answer:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = attrs.field(factory=dict)
    delay: float = 0.0
    #: Send only this many bytes of the body (after a Content-Length of the whole), then close.
    truncate: int | None = None


def json_answer(data: Any, status: int = 200) -> Answer:
    return Answer(status, json.dumps(data).encode(), {"Content-Type": "application/json"})


Route = Answer | Callable[[str], "Answer | None"]


class WebServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.prefixes: list[tuple[str, Callable[[str], Answer | None]]] = []
        self.requests: list[str] = []
        #: The Authorization header of each request (None: none sent), in order.
        self.authorizations: list[str | None] = []
        #: ``(user, password)`` every request must carry as Basic authorization, or None.
        self.auth: tuple[str, str] | None = None
        self._server: http.server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, path: str, answer: Route) -> None:
        self.routes[path] = answer

    def prefix(self, path: str, handler: Callable[[str], Answer | None]) -> None:
        self.prefixes.append((path, handler))

    def answer(self, path: str) -> Answer:
        route = self.routes.get(path)
        if route is None:
            route = self.routes.get(urllib.parse.urlsplit(path).path)
        if callable(route):
            found = route(path)
            if found is not None:
                return found
        elif route is not None:
            return route
        for prefix, handler in self.prefixes:
            if path.startswith(prefix):
                found = handler(path)
                if found is not None:
                    return found
        return json_answer({"message": "Not Found"}, 404)

    def __enter__(self) -> WebServer:
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.requests.append(self.path)
                given = self.headers.get("Authorization")
                owner.authorizations.append(given)
                answer = owner.answer(self.path)
                if owner.auth is not None and given != "Basic " + base64.b64encode(
                        ":".join(owner.auth).encode()).decode():
                    answer = Answer(401, b"{}", {"WWW-Authenticate": 'Basic realm="test"'})
                if answer.delay:
                    time.sleep(answer.delay)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                body = answer.body if answer.truncate is None else answer.body[:answer.truncate]
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                if answer.truncate is not None:
                    self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def web_server() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


# -- a skills registry ------------------------------------------------------------------------


def registry(server: WebServer, skills: Mapping[str, Mapping[str, Any]]) -> str:
    """Serve the registry API for ``skills`` ({ref: record}); returns its base URL."""

    def search(path: str) -> Answer:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query).get("q", [""])[0].lower()
        hits = [{"ref": ref, "name": rec.get("name", ref.rsplit("/", 1)[-1]),
                 "description": rec.get("description", "")}
                for ref, rec in skills.items()
                if query in ref.lower() or query in str(rec.get("description", "")).lower()]
        return json_answer({"skills": hits})

    def record(path: str) -> Answer | None:
        ref = urllib.parse.unquote(urllib.parse.urlsplit(path).path[len("/skills/"):])
        if ref in skills:
            return json_answer({"ref": ref, **skills[ref]})
        return None

    server.route("/search", search)
    server.prefix("/skills/", record)
    return server.url


# -- a Hermes-shaped repository ----------------------------------------------------------------


def git_blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


def _tree_sha(files: Mapping[str, bytes], folder: str) -> str:
    """A stable id of a folder's content (stands in for git's tree id)."""
    digest = hashlib.sha1()
    for path in sorted(p for p in files if p.startswith(folder + "/")):
        digest.update(path.encode() + b"\0" + git_blob_sha(files[path]).encode())
    return digest.hexdigest()


def hermes(server: WebServer, files: Mapping[str, bytes], ref: str = "main",
           commit: str = "c0ffee" * 6 + "c0ff") -> dict[str, str]:
    """Serve ``files`` as the GitHub API and raw host of a Hermes repository; returns the
    environment pointing lemon at it (``LEMON_HERMES_API_URL``, ``LEMON_HERMES_RAW_URL``)."""
    folders = sorted({"/".join(p.split("/")[:i]) for p in files
                      for i in range(1, p.count("/") + 1)})
    tree = [{"path": d, "mode": "040000", "type": "tree", "sha": _tree_sha(files, d)}
            for d in folders]
    tree += [{"path": p, "mode": "100644", "type": "blob", "sha": git_blob_sha(data),
              "size": len(data)} for p, data in sorted(files.items())]
    server.route(f"/api/commits/{ref}", json_answer({"sha": commit}))
    server.route(f"/api/git/trees/{commit}?recursive=1",
                 json_answer({"sha": "tree" + commit[4:], "tree": tree, "truncated": False}))

    def raw(path: str) -> Answer | None:
        rest = urllib.parse.unquote(path[len(f"/raw/{commit}/"):])
        if path.startswith(f"/raw/{commit}/") and rest in files:
            return Answer(200, files[rest], {"Content-Type": "text/plain"})
        return None

    server.prefix("/raw/", raw)
    return {"LEMON_HERMES_API_URL": server.url + "/api",
            "LEMON_HERMES_RAW_URL": server.url + "/raw"}
