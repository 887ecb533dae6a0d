"""Opening a dulwich client for a git location (https, http, ssh, ``user@host:path``, file).

HTTP(S) goes through :mod:`lemon_core.source_kit.http_git` (``http.client``); with a proxy
variable set (``https_proxy``, ``http_proxy``, ``all_proxy``), through dulwich's urllib3 client,
which applies the proxy and ``no_proxy``. Both keep the rules of
:mod:`lemon_core.source_kit.transport` (same-origin redirects, origin-bound credentials).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lemon_core.source_kit.location import public_url, url_scheme
from lemon_core.source_kit.transport import (
    CONNECT_TIMEOUT,
    MAX_REDIRECTS,
    READ_TIMEOUT,
    Auth,
    GitSourceError,
    RedirectRefused,
    origin,
)


def _same_origin_pool(base: type) -> type:
    """A urllib3 pool manager class that follows redirects itself, within one origin only."""
    from urllib.parse import urljoin

    class SameOriginManager(base):
        def urlopen(self, method: str, url: str, redirect: bool = True, **kw: Any) -> Any:
            for _ in range(MAX_REDIRECTS + 1):
                response = super().urlopen(method, url, redirect=False, **kw)
                location = response.get_redirect_location() if redirect else False
                if not location:
                    return response
                target = urljoin(url, location)
                response.drain_conn()
                if origin(target) != origin(url):
                    raise RedirectRefused(
                        f"{public_url(url)} redirected to another host "
                        f"({public_url(target)}); lemon follows redirects only within one "
                        "host: use the final URL if you trust it")
                if response.status == 303:
                    method, kw = "GET", {k: v for k, v in kw.items() if k != "body"}
                url = target
            raise GitSourceError(f"{public_url(url)}: more than {MAX_REDIRECTS} redirects")

    return SameOriginManager


#: The variables that send dulwich's HTTP client through a proxy.
PROXY_ENV = ("https_proxy", "http_proxy", "all_proxy", "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")


def _http_client(url: str, auth: Auth | None) -> Any:
    parts = urlsplit(url)
    if parts.username is not None and auth is None:
        from urllib.parse import unquote

        auth = Auth(unquote(parts.username), unquote(parts.password or ""))
    host = parts.hostname or ""
    netloc = host if ":" not in host else f"[{host}]"
    if parts.port:
        netloc += f":{parts.port}"
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    if not any(os.environ.get(name) for name in PROXY_ENV):
        from lemon_core.source_kit.http_git import StdlibHttpGitClient

        return StdlibHttpGitClient(clean, auth), parts.path
    return _proxied_client(clean, auth), parts.path


def _proxied_client(clean: str, auth: Auth | None) -> Any:
    """dulwich's urllib3 client, which takes the proxy (and ``no_proxy``) from the
    environment, with lemon's same-origin redirects."""
    import urllib3
    from dulwich.client import Urllib3HttpGitClient, default_urllib3_manager

    manager = default_urllib3_manager(
        None, pool_manager_cls=_same_origin_pool(urllib3.PoolManager),
        proxy_manager_cls=_same_origin_pool(urllib3.ProxyManager), base_url=clean,
        timeout=urllib3.Timeout(connect=CONNECT_TIMEOUT, read=READ_TIMEOUT))  # type: ignore[arg-type]
    return Urllib3HttpGitClient(
        clean, pool_manager=manager,
        username=auth.username if auth else None, password=auth.password if auth else None)


#: The parts of a repository's folder dulwich opens by name (blocking), besides loose objects,
#: which :mod:`lemon_core.source_kit.objects` opens through the safe reader first.
_OPENED = ("HEAD", "config", "commondir", "packed-refs", "refs", "objects/pack", "objects/info",
           "shallow")


def _check_local(path: Any, url: str) -> None:
    """Refuse a local repository holding a FIFO, device or socket (itself or at the end of a
    link) where dulwich opens files: opening one would block the fetch for ever."""
    import stat

    from lemon_core.text import escape

    control = path if (path / "objects").is_dir() else path / ".git"
    if not control.is_dir():
        return  # a .git file pointing elsewhere: dulwich follows it
    stack = [control / name for name in _OPENED]
    seen = 0
    while stack and seen < 100_000:
        entry = stack.pop()
        seen += 1
        try:
            mode = os.lstat(entry).st_mode
            linked = stat.S_ISLNK(mode)
            if linked:  # judged by what it leads to; a linked folder is not walked
                mode = os.stat(entry).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode) and not linked:
            try:
                stack.extend(entry / name for name in os.listdir(entry))
            except OSError:
                continue
        elif not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise GitSourceError(f"the repository at {public_url(url)} holds "
                                 f"{escape(os.path.relpath(entry, control))}, which is not a "
                                 "regular file: refusing it (reading it could block lemon)")


def open_client(url: str, auth: Auth | None = None) -> tuple[Any, str]:
    """(dulwich client, path on the server) for ``url`` (https, http, ssh, user@host:path, file)."""
    scheme = url_scheme(url)
    if scheme in ("http", "https"):
        return _http_client(url, auth)
    from dulwich.client import get_transport_and_path

    if scheme == "file":
        from pathlib import Path

        path = urlsplit(url).path
        if not (Path(path) / "objects").is_dir() and not (Path(path) / ".git").exists():
            raise GitSourceError(f"no git repository at {url}: check the path")
        _check_local(Path(path), url)
    client, path = get_transport_and_path(url)
    return client, path


__all__ = ["PROXY_ENV", "open_client"]
