"""What a remote advertises (``git ls-remote``) and which commit a user's ref names.

:func:`list_refs` is one request and downloads no object. :func:`resolve` answers from that
listing alone: a branch, a tag (peeled to its commit), ``HEAD`` when no ref is given, a full
commit id as given, a short one when an advertised tip starts with it; otherwise it says the
commit must be searched for in the history (:attr:`Resolution.needs_history`).
"""

from __future__ import annotations

from typing import Any

import attrs

from lemon_core.source_kit.connect import open_client
from lemon_core.source_kit.location import looks_like_commit
from lemon_core.source_kit.transport import (
    Auth,
    GitSourceError,
    git_errors,
)


@attrs.frozen
class RemoteRefs:
    """Advertised refs (name -> hex id), ``peeled`` tag -> commit, and ``head`` (HEAD's
    target ref name, when the server says)."""

    refs: dict[str, str]
    peeled: dict[str, str] = attrs.field(factory=dict)
    head: str | None = None

    def commit_of(self, name: str) -> str | None:
        return self.peeled.get(name) or self.refs.get(name)

    def names(self, prefix: str) -> list[str]:
        return sorted(n[len(prefix):] for n in self.refs if n.startswith(prefix))


@attrs.frozen
class Resolution:
    """``want`` is the id to ask the server for (None: search the history for ``prefix``);
    ``commit`` the commit it names when known without downloading; ``name`` the ref name."""

    want: str | None
    commit: str | None
    name: str | None = None
    prefix: str | None = None

    @property
    def needs_history(self) -> bool:
        return self.want is None


def _text(value: bytes | str | None) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else (value or "")


def remote_refs(refs: dict[Any, Any], symrefs: dict[Any, Any] | None = None) -> RemoteRefs:
    """:class:`RemoteRefs` of dulwich's ref dictionary (bytes names, ``^{}`` peeled entries)."""
    plain: dict[str, str] = {}
    peeled: dict[str, str] = {}
    for name, sha in refs.items():
        if sha is None:
            continue
        key, value = _text(name), _text(sha)
        if key.endswith("^{}"):
            peeled[key[:-3]] = value
        else:
            plain[key] = value
    head = _text((symrefs or {}).get(b"HEAD")) or None
    return RemoteRefs(refs=plain, peeled=peeled, head=head)


def list_refs(url: str, auth: Auth | None = None, secrets: tuple[str, ...] = ()) -> RemoteRefs:
    """The refs ``url`` advertises: one request, no objects."""
    with git_errors(url, secrets):
        client, path = open_client(url, auth)
        try:
            result = client.get_refs(path.encode("utf-8") if isinstance(path, str) else path)
        finally:
            client.close()
    return remote_refs(result.refs, result.symrefs)


class RefCache:
    """Ref listings shared while one ``scope`` object lives (the context of one command, so
    checking many skills of one repository asks it once) and at most ``ttl`` seconds; a new
    scope asks again. Safe to share between threads."""

    def __init__(self, ttl: float = 60.0) -> None:
        import threading

        self.ttl = ttl
        self._lock = threading.Lock()
        self._entries: dict[tuple[int, str, str | None], tuple[Any, float, RemoteRefs]] = {}
        self._locks: dict[tuple[int, str, str | None], Any] = {}

    def get(self, url: str, auth: Auth | None = None, secrets: tuple[str, ...] = (),
            scope: object = None) -> RemoteRefs:
        import threading
        import time
        import weakref

        try:
            owner = weakref.ref(scope) if scope is not None else None
        except TypeError:
            owner = None
        if owner is None:
            return list_refs(url, auth, secrets)
        key = (id(scope), url, auth.username if auth else None)
        with self._lock:
            lock = self._locks.setdefault(key, threading.Lock())
            for stale in [k for k, (ref, _, _) in self._entries.items() if ref() is None]:
                self._entries.pop(stale, None)
                self._locks.pop(stale, None)
        with lock:  # two threads asking for one repository make one request
            entry = self._entries.get(key)
            if (entry is not None and entry[0]() is scope
                    and time.monotonic() - entry[1] < self.ttl):
                return entry[2]
            remote = list_refs(url, auth, secrets)
            self._entries[key] = (owner, time.monotonic(), remote)
            return remote


def resolve(remote: RemoteRefs, ref: str | None, shown: str) -> Resolution:
    """The commit ``ref`` names on the remote (``shown`` is the URL for messages)."""
    if not remote.refs:
        raise GitSourceError(f"{shown} is an empty repository: it has no branches or tags")
    if ref is None:
        sha = remote.refs.get("HEAD") or (remote.head and remote.refs.get(remote.head))
        if not sha:
            raise GitSourceError(f"{shown} has no default branch (HEAD): name a branch with "
                                 f"@<branch>{_available(remote)}")
        return Resolution(want=sha, commit=sha, name=remote.head or "HEAD")
    candidates = [ref] if ref.startswith("refs/") else [
        f"refs/heads/{ref}", f"refs/tags/{ref}", f"refs/{ref}"]
    for name in candidates:
        if name in remote.refs:
            return Resolution(want=remote.refs[name], commit=remote.commit_of(name), name=name)
    if looks_like_commit(ref):
        tips = {*remote.refs.values(), *remote.peeled.values()}
        if len(ref) in (40, 64):
            return Resolution(want=ref, commit=ref)
        matches = sorted({sha for sha in tips if sha.startswith(ref)})
        if len(matches) == 1:
            return Resolution(want=matches[0], commit=matches[0])
        return Resolution(want=None, commit=None, prefix=ref)
    raise GitSourceError(f"{shown} has no branch or tag {ref!r}{_available(remote)}")


def _available(remote: RemoteRefs) -> str:
    branches = remote.names("refs/heads/")
    tags = remote.names("refs/tags/")
    parts = []
    if branches:
        parts.append("branches: " + ", ".join(branches[:10]) + (" …" if len(branches) > 10 else ""))
    if tags:
        parts.append("tags: " + ", ".join(tags[-10:]) + (" …" if len(tags) > 10 else ""))
    return f" ({'; '.join(parts)})" if parts else ""
