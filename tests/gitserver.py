"""Real git repositories for tests: built with dulwich, served by dulwich's own smart-HTTP server.

``build_repo(path, files)`` makes a repository with one commit on ``main``; ``commit`` adds
more (branches, tags, annotated tags). File values are bytes or text, or :class:`Link`
(a symlink), :class:`Gitlink` (a submodule entry), :class:`Exec` (an executable file) or
:class:`Zeros` (a file of zero bytes of any size, never held in memory).

``GitServer`` serves repositories over HTTP on 127.0.0.1 in a thread (``with GitServer() as
server: url = server.add("owner/repo.git", repo)``) and can misbehave on purpose:
``redirect(path, to)`` answers 302 to another URL, ``drop_after(path, n)`` cuts the
upload-pack answer after ``n`` bytes, ``require_auth(user, password)`` answers 401 without
those credentials; ``requests`` records every request (method, path, whether it carried an
Authorization header, and the header itself).

The ``git_server`` fixture gives a started server; import it into a test module with
``from tests.gitserver import git_server  # noqa: F401``.
"""

from __future__ import annotations

import base64
import io
import socketserver
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest


@attrs.frozen
class Link:
    target: str


@attrs.frozen
class Gitlink:
    commit: str


@attrs.frozen
class Exec:
    data: bytes


@attrs.frozen
class Zeros:
    """A file of ``size`` zero bytes, written as a loose object in bounded chunks (a repository
    can hold gigabytes of them without the test ever holding one in memory)."""

    size: int


FileSpec = bytes | str | Link | Gitlink | Exec | Zeros


def zero_blob(repo: Any, size: int) -> bytes:
    """Write a blob of ``size`` zero bytes into ``repo``'s objects folder as a loose object,
    64 KiB at a time; its id (hex, as bytes)."""
    import hashlib
    import os
    import tempfile
    import zlib

    chunk = bytes(64 * 1024)
    header = b"blob %d\x00" % size
    digest = hashlib.sha1(header)
    objects = Path(repo.object_store.path)
    fd, tmp = tempfile.mkstemp(dir=objects, prefix="tmp-zeros-")
    with os.fdopen(fd, "wb") as out:
        packer = zlib.compressobj(1)
        out.write(packer.compress(header))
        left = size
        while left:
            piece = chunk[:min(left, len(chunk))]
            digest.update(piece)
            out.write(packer.compress(piece))
            left -= len(piece)
        out.write(packer.flush())
    sha = digest.hexdigest()
    (objects / sha[:2]).mkdir(exist_ok=True)
    os.replace(tmp, objects / sha[:2] / sha[2:])
    return sha.encode("ascii")

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


def _tree_for(repo: Any, files: Mapping[str, FileSpec]) -> bytes:
    from dulwich.objects import Blob, Tree

    nested: dict[str, Any] = {}
    for path, spec in files.items():
        parts = path.split("/")
        node = nested
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = spec

    def build(node: dict[str, Any]) -> bytes:
        tree = Tree()
        for name, value in node.items():
            raw = name.encode("utf-8")
            if isinstance(value, dict):
                tree.add(raw, 0o040000, build(value))
            elif isinstance(value, Gitlink):
                tree.add(raw, 0o160000, value.commit.encode("ascii"))
            elif isinstance(value, Zeros):
                tree.add(raw, 0o100644, zero_blob(repo, value.size))
            else:
                if isinstance(value, Link):
                    data, mode = value.target.encode("utf-8"), 0o120000
                elif isinstance(value, Exec):
                    data, mode = value.data, 0o100755
                else:
                    data = value.encode("utf-8") if isinstance(value, str) else value
                    mode = 0o100644
                blob = Blob.from_string(data)
                repo.object_store.add_object(blob)
                tree.add(raw, mode, blob.id)
        repo.object_store.add_object(tree)
        return tree.id

    return build(nested)


def commit(repo: Any, files: Mapping[str, FileSpec], *, branch: str = "main",
           message: str = "commit", tag: str | None = None, annotated: bool = False,
           parent: str | None = None) -> str:
    """Commit ``files`` (the whole tree) on ``branch``; the new commit id (hex)."""
    from dulwich.objects import Commit, Tag

    ref = f"refs/heads/{branch}".encode()
    c = Commit()
    c.tree = _tree_for(repo, files)
    if parent is not None:
        c.parents = [parent.encode("ascii")]
    elif ref in repo.refs:
        c.parents = [repo.refs[ref]]
    c.author = c.committer = b"Test <test@example.invalid>"
    c.author_time = c.commit_time = int(time.time())
    c.author_timezone = c.commit_timezone = 0
    c.encoding = b"UTF-8"
    c.message = message.encode("utf-8")
    repo.object_store.add_object(c)
    repo.refs[ref] = c.id
    if tag is not None:
        if annotated:
            t = Tag()
            t.tagger = c.author
            t.message = b"tag " + tag.encode()
            t.name = tag.encode()
            t.object = (Commit, c.id)
            t.tag_time = c.commit_time
            t.tag_timezone = 0
            repo.object_store.add_object(t)
            repo.refs[b"refs/tags/" + tag.encode()] = t.id
        else:
            repo.refs[b"refs/tags/" + tag.encode()] = c.id
    return c.id.decode("ascii")


def build_repo(path: Path, files: Mapping[str, FileSpec], *, branch: str = "main",
               bare: bool = True, hooks: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """A new repository at ``path`` with one commit of ``files`` on ``branch`` (HEAD points
    at it); ``hooks`` are written executable into its hooks folder. (repo, commit id)."""
    from dulwich.repo import Repo

    path.mkdir(parents=True, exist_ok=True)
    repo = Repo.init_bare(str(path)) if bare else Repo.init(str(path))
    repo.refs.set_symbolic_ref(b"HEAD", f"refs/heads/{branch}".encode())
    sha = commit(repo, files, branch=branch, message="initial")
    if hooks:
        hooks_dir = Path(repo.controldir()) / "hooks"
        hooks_dir.mkdir(exist_ok=True)
        for name, script in hooks.items():
            (hooks_dir / name).write_text(script, encoding="utf-8")
            (hooks_dir / name).chmod(0o755)
    return repo, sha


class _ThreadingServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class GitServer:
    """dulwich's smart-HTTP git server on 127.0.0.1, in a thread."""

    def __init__(self) -> None:
        from dulwich.server import DictBackend

        self.repos: dict[str, Any] = {}
        self.backend = DictBackend(self.repos)
        self.requests: list[tuple[str, str, str | None]] = []
        self.redirects: dict[str, str] = {}
        self.drops: dict[str, int] = {}
        self.auth: str | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    # -- set-up ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def add(self, path: str, repo: Any) -> str:
        """Serve ``repo`` at ``/<path>``; its URL."""
        self.repos["/" + path.strip("/")] = repo
        return f"{self.url}/{path.strip('/')}"

    def redirect(self, path: str, to: str) -> None:
        """Requests under ``/<path>`` answer 302 to ``to`` + the rest of the path."""
        self.redirects["/" + path.strip("/")] = to.rstrip("/")

    def drop_after(self, path: str, nbytes: int) -> None:
        """The upload-pack answer for ``/<path>`` stops after ``nbytes`` bytes."""
        self.drops["/" + path.strip("/")] = nbytes

    def require_auth(self, user: str, password: str) -> None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self.auth = f"Basic {token}"

    # -- the WSGI chain ------------------------------------------------------------------------

    def _app(self, environ: dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        header = environ.get("HTTP_AUTHORIZATION")
        self.requests.append((environ["REQUEST_METHOD"], path, header))
        for prefix, target in self.redirects.items():
            if path.startswith(prefix + "/"):
                rest = path[len(prefix):]
                query = environ.get("QUERY_STRING")
                location = target + rest + (f"?{query}" if query else "")
                start_response("302 Found", [("Location", location), ("Content-Length", "0")])
                return [b""]
        if self.auth is not None and header != self.auth:
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="git"'),
                                                ("Content-Length", "0")])
            return [b""]
        limit = next((n for p, n in self.drops.items()
                      if path.startswith(p + "/") and path.endswith("git-upload-pack")), None)
        if limit is None:
            return self._git(environ, start_response)
        sent = [0]

        def cutting_start_response(status: str, headers: Any, exc_info: Any = None) -> Any:
            write = start_response(status, headers, exc_info)

            def cut_write(data: bytes) -> None:
                room = max(0, limit - sent[0])
                if room:
                    write(data[:room])
                sent[0] += len(data)

            return cut_write

        return _cut(self._git(environ, cutting_start_response), limit, sent)

    def start(self) -> GitServer:
        from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

        from dulwich.web import make_wsgi_chain

        self._git = make_wsgi_chain(self.backend)

        class Handler(WSGIRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def get_stderr(self) -> Any:  # the server's tracebacks of refused requests
                return io.StringIO()

        class Server(_ThreadingServer, WSGIServer):
            pass

        self._server = Server(("127.0.0.1", 0), Handler)
        self._server.set_app(self._app)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,),
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> GitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _cut(body: Any, limit: int, sent: list[int]) -> Iterator[bytes]:
    for chunk in body:
        room = max(0, limit - sent[0])
        sent[0] += len(chunk)
        if room:
            yield chunk[:room]
    if hasattr(body, "close"):
        body.close()


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server
