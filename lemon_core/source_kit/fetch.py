"""Fetch one commit of a git repository (dulwich only, no git binary) into a staging folder.

:func:`fetch_tree` resolves the ref from the server's own ref advertisement (no extra round
trip), asks for that one commit at depth 1, and falls back to a full fetch of the branches and
tags when the server cannot serve it shallow (a commit that is no branch or tag tip, a server
without shallow support) or when a short commit id must be looked for in the history. Objects
stay in memory; only the tree (or ``subdirectory`` of it) is written, by
:func:`~lemon_core.source_kit.checkout.write_tree`. :func:`upstream_commit` is the commit a ref
points at upstream: one ref listing, no object downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from lemon_core.protocols import ProgressCallback
from lemon_core.source_kit.checkout import find_tree, write_tree
from lemon_core.source_kit.connect import open_client
from lemon_core.source_kit.limits import (
    DEFAULT_LIMITS,
    FetchLimits,
    FetchTooLarge,
    check_pack,
    size_text,
)
from lemon_core.source_kit.location import public_url
from lemon_core.source_kit.refs import (
    RefCache,
    Resolution,
    list_refs,
    remote_refs,
    resolve,
)
from lemon_core.source_kit.transport import (
    Auth,
    GitSourceError,
    git_errors,
)
from lemon_core.text import escape

#: The note a fetch carries when the server could not send the commit alone.
FULL_HISTORY_NOTE = ("fetched the full history: the server would not send that commit alone")


@attrs.frozen
class FetchedTree:
    """What :func:`fetch_tree` placed: the exact ``commit``, the ``ref_name`` it came from
    (None for a commit id), whether the fetch was ``shallow``, notes for the user, counts."""

    commit: str
    ref_name: str | None
    shallow: bool
    notes: tuple[str, ...]
    files: int
    bytes: int


def _history_wants(refs: dict[Any, Any]) -> list[bytes]:
    return sorted({sha for name, sha in refs.items() if sha is not None
                   and name.startswith((b"refs/heads/", b"refs/tags/"))
                   and not name.endswith(b"^{}")})


def _peel_to_commit(store: Any, sha: str, shown: str) -> Any:
    from dulwich.objects import Commit, Tag

    try:
        obj = store[sha.encode("ascii")]
        while isinstance(obj, Tag):
            obj = store[obj.object[1]]
    except KeyError:
        raise GitSourceError(f"{shown} did not send commit {sha[:12]}: it is not on any "
                             "branch or tag the server lets lemon fetch") from None
    if not isinstance(obj, Commit):
        raise GitSourceError(f"{sha[:12]} at {shown} is a {obj.type_name.decode()}, "
                             "not a commit")
    return obj


def _find_prefix(store: Any, prefix: str, shown: str) -> str:
    from dulwich.objects import Commit

    found = sorted(sha.decode("ascii") for sha in store if sha.decode("ascii").startswith(prefix)
                   and isinstance(store[sha], Commit))
    if not found:
        raise GitSourceError(f"{shown} has no branch, tag or commit {prefix!r}")
    if len(found) > 1:
        raise GitSourceError(f"{prefix!r} names {len(found)} commits at {shown} "
                             f"({', '.join(f[:12] for f in found[:5])}): give more digits")
    return found[0]


def _fetch(client: Any, path: str, target: Any, wants: Any, depth: int | None,
           limits: FetchLimits) -> None:
    """Fetch into ``target``: a local repository through dulwich's own copy, a remote one
    through a pack spooled to a temporary file, capped and measured before it is unpacked."""
    from tempfile import SpooledTemporaryFile

    from dulwich.client import LocalGitClient

    raw = path.encode("utf-8") if isinstance(path, str) else path
    if isinstance(client, LocalGitClient):
        client.fetch(raw, target, determine_wants=wants, depth=depth)
        return
    with SpooledTemporaryFile(max_size=16 * 1024 * 1024, prefix="lemon-pack-") as f:
        received = 0

        def pack_data(chunk: bytes) -> int:
            nonlocal received
            received += len(chunk)
            if received > limits.max_pack_bytes:
                raise FetchTooLarge(f"the repository sends more than "
                                    f"{size_text(limits.max_pack_bytes)}: refusing it")
            return f.write(chunk)

        result = client.fetch_pack(raw, wants, target.get_graph_walker(), pack_data,
                                   depth=depth)
        if f.tell():
            f.seek(0)
            check_pack(f, limits)  # type: ignore[arg-type]
            f.seek(0)
            target.object_store.add_thin_pack(f.read, None)
    target.update_shallow(result.new_shallow, result.new_unshallow)


def fetch_tree(url: str, ref: str | None, dest: Path, *, subdirectory: str | None = None,
               auth: Auth | None = None, secrets: tuple[str, ...] = (),
               progress: ProgressCallback | None = None,
               limits: FetchLimits = DEFAULT_LIMITS) -> FetchedTree:
    """Fetch the commit ``ref`` names (None: the default branch) from ``url`` and write its
    tree, or its folder ``subdirectory``, into the empty folder ``dest``. Nothing fetched is
    run; on failure a :class:`GitSourceError` says why and ``dest`` may hold part of the
    files (the caller owns and deletes it)."""
    from dulwich.errors import GitProtocolError, HangupException
    from dulwich.repo import MemoryRepo

    shown = public_url(url)
    report = progress or (lambda done, total, message: None)
    report(0, 3, f"fetching {shown}" + (f" @{ref}" if ref else ""))
    chosen: dict[str, Any] = {}

    def wants(refs: dict[Any, Any], depth: int | None = None) -> list[bytes]:
        resolution = resolve(remote_refs(refs), ref, shown)
        chosen["resolution"], chosen["refs"] = resolution, refs
        if resolution.needs_history:  # a short id: look for it in the whole history
            return [] if depth else _history_wants(refs)
        return [resolution.want.encode("ascii")]  # type: ignore[union-attr]

    target = MemoryRepo()
    shallow = True
    with git_errors(url, secrets):
        client, path = open_client(url, auth)
        try:
            try:
                _fetch(client, path, target, wants, 1, limits)
                retry = chosen["resolution"].needs_history
            except (GitProtocolError, KeyError) as exc:
                if isinstance(exc, HangupException) or not _shallow_refused(chosen, exc):
                    raise
                retry = True
            if retry:
                target, shallow = MemoryRepo(), False
                report(1, 3, f"looking for {ref} in the history of {shown}")
                found: Resolution = chosen["resolution"]
                _fetch(client, path, target,
                       lambda refs, depth=None: _history_wants(refs) or (
                           [found.want.encode("ascii")] if found.want else []), None, limits)
        finally:
            client.close()
    resolution: Resolution = chosen["resolution"]
    commit_id = (resolution.want if resolution.want is not None
                 else _find_prefix(target.object_store, resolution.prefix or "", shown))
    commit = _peel_to_commit(target.object_store, commit_id, shown)
    sha = commit.id.decode("ascii")
    report(2, 3, f"writing the files of {sha[:12]}")
    tree = find_tree(target.object_store, commit.tree, subdirectory, sha)
    checkout = write_tree(target.object_store, tree, dest, max_entries=limits.max_entries)
    report(3, 3, f"fetched {checkout.files} files at {sha[:12]}")
    name = resolution.name
    notes = checkout.notes if shallow else (*checkout.notes, FULL_HISTORY_NOTE)
    return FetchedTree(commit=sha, ref_name=escape(name) if name else None, shallow=shallow,
                       notes=notes, files=checkout.files, bytes=checkout.bytes)


def _shallow_refused(chosen: dict[str, Any], exc: BaseException) -> bool:
    """Is ``exc`` the server refusing a shallow fetch or a non-tip commit (worth one full
    retry), rather than a failure a retry would only repeat?"""
    resolution: Resolution | None = chosen.get("resolution")
    if resolution is None:
        return False
    if resolution.needs_history:
        return False
    advertised = {sha for sha in chosen["refs"].values() if sha is not None}
    if resolution.want is not None and resolution.want.encode("ascii") not in advertised:
        return True
    text = str(exc).lower()
    return "shallow" in text or "depth" in text


def upstream_commit(url: str, ref: str | None, *, auth: Auth | None = None,
                    secrets: tuple[str, ...] = (), cache: RefCache | None = None,
                    scope: object = None) -> str | None:
    """The commit ``ref`` points at on ``url`` now (one ref listing, no objects; shared
    through ``cache`` while ``scope`` lives); None when only a history search could tell (a
    short commit id that is no tip)."""
    remote = (cache.get(url, auth, secrets, scope) if cache is not None
              else list_refs(url, auth, secrets))
    resolution = resolve(remote, ref, public_url(url))
    return resolution.commit
