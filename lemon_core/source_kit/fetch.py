"""Fetch one commit of a git repository (dulwich only, no git binary) into a staging folder.

:func:`fetch_tree` resolves the ref from the server's own ref advertisement (no extra round
trip), asks for that one commit at depth 1, and falls back to a full fetch of the branches and
tags when the server cannot serve it shallow (a commit that is no branch or tag tip, a server
without shallow support) or when a short commit id must be looked for in the history. The
pack, capped and measured (:mod:`~lemon_core.source_kit.limits`), is unpacked in memory when
it inflates to at most 16 MiB and otherwise into a scratch repository on disk that is deleted
afterwards; a ``file://`` repository is read in place (nothing copied). Either way only the
trees on the way to ``subdirectory`` and the objects inside it are read, each by its header
first, and :func:`~lemon_core.source_kit.checkout.write_tree` streams the files into the
staging folder. :func:`upstream_commit` is the commit a ref points at upstream: one ref
listing, no object downloaded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from lemon_core.protocols import ProgressCallback
from lemon_core.source_kit.checkout import find_tree, folder_ids, write_tree
from lemon_core.source_kit.connect import open_client
from lemon_core.source_kit.limits import (
    DEFAULT_LIMITS,
    FetchLimits,
    FetchTooLarge,
    check_pack,
    size_text,
)
from lemon_core.source_kit.location import public_url
from lemon_core.source_kit.objects import load
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
    #: The git tree id of the written folder (``""``) and of every folder in it (``a/b``).
    trees: dict[str, str] = attrs.field(factory=dict)


def _history_wants(refs: dict[Any, Any]) -> list[bytes]:
    return sorted({sha for name, sha in refs.items() if sha is not None
                   and name.startswith((b"refs/heads/", b"refs/tags/"))
                   and not name.endswith(b"^{}")})


def _peel_to_commit(store: Any, sha: str, shown: str, limits: FetchLimits) -> Any:
    from dulwich.objects import Commit, Tag

    try:
        obj = load(store, sha.encode("ascii"), limits.max_object_bytes)
        while isinstance(obj, Tag):
            obj = load(store, obj.object[1], limits.max_object_bytes)
    except KeyError:
        raise GitSourceError(f"{shown} did not send commit {sha[:12]}: it is not on any "
                             "branch or tag the server lets lemon fetch") from None
    if not isinstance(obj, Commit):
        raise GitSourceError(f"{sha[:12]} at {shown} is a {obj.type_name.decode()}, "
                             "not a commit")
    return obj


def _find_prefix(store: Any, prefix: str, tips: list[bytes], shown: str,
                 limits: FetchLimits) -> str:
    """The one commit starting with ``prefix`` in the history of ``tips`` (branches and
    tags): only commits and tags are read, never a tree or a blob."""
    from dulwich.objects import Commit, Tag

    found: set[str] = set()
    seen: set[bytes] = set()
    stack = list(tips)
    while stack:
        sha = stack.pop()
        if sha in seen:
            continue
        seen.add(sha)
        if len(seen) > limits.max_objects:
            raise FetchTooLarge(f"the history of {shown} holds more than "
                                f"{limits.max_objects:,} commits: give the full commit id")
        try:
            obj = load(store, sha, limits.max_object_bytes)
        except KeyError:
            continue  # beyond a shallow boundary, or a tag of something else
        if isinstance(obj, Tag):
            stack.append(obj.object[1])
        elif isinstance(obj, Commit):
            if obj.id.decode("ascii").startswith(prefix):
                found.add(obj.id.decode("ascii"))
            stack.extend(obj.parents)
    if not found:
        raise GitSourceError(f"{shown} has no branch, tag or commit {prefix!r}")
    if len(found) > 1:
        ordered = sorted(found)
        raise GitSourceError(f"{prefix!r} names {len(found)} commits at {shown} "
                             f"({', '.join(f[:12] for f in ordered[:5])}): give more digits")
    return found.pop()


#: A pack whose objects inflate to at most this is unpacked in memory (quicker for a skill-sized
#: repository); a larger one goes into a scratch repository on disk.
IN_MEMORY_BYTES = 16 * 1024 * 1024


def _fetch(client: Any, path: str, wants: Any, depth: int | None, limits: FetchLimits,
           scratch: Any) -> Any:
    """The repository holding what the server sends for ``wants``: the pack is spooled to a
    temporary file, capped and measured before it is unpacked, then unpacked in memory when
    it inflates to at most :data:`IN_MEMORY_BYTES`, else into ``scratch()`` (on disk)."""
    from tempfile import SpooledTemporaryFile

    from dulwich.repo import MemoryRepo

    raw = path.encode("utf-8") if isinstance(path, str) else path
    target = MemoryRepo()  # empty: no haves, whichever store the objects go to
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
            inflated = check_pack(f, limits)
            if inflated > IN_MEMORY_BYTES:
                target = scratch()
            f.seek(0)
            target.object_store.add_thin_pack(f.read, None)
    target.update_shallow(result.new_shallow, result.new_unshallow)
    return target


@attrs.frozen
class _Source:
    """Where the objects of a fetch are read from: ``store``, the ``resolution`` of the ref,
    the ref advertisement ``refs``, and whether the fetch was ``shallow``."""

    store: Any
    resolution: Resolution
    refs: dict[Any, Any]
    shallow: bool


def _scratch_repo(root: str, name: str, stack: contextlib.ExitStack) -> Any:
    """An empty bare repository in the folder ``root/name``, closed when ``stack`` ends."""
    from dulwich.repo import Repo

    path = os.path.join(root, name)
    os.mkdir(path, 0o700)
    repo = Repo.init_bare(path)
    stack.callback(repo.close)
    return repo


def _local(client: Any, path: str, ref: str | None, shown: str,
           stack: contextlib.ExitStack) -> _Source:
    """A repository on this machine (``file://``): read in place, nothing copied. Only the
    trees on the way to the chosen folder and the blobs inside it are ever read."""
    from dulwich.repo import Repo

    raw = path.encode("utf-8") if isinstance(path, str) else path
    result = client.get_refs(raw)
    resolution = resolve(remote_refs(result.refs, result.symrefs), ref, shown)
    repo = Repo(os.fsdecode(raw))
    stack.callback(repo.close)
    return _Source(repo.object_store, resolution, result.refs, shallow=True)


def _remote(client: Any, path: str, ref: str | None, shown: str, limits: FetchLimits,
            stack: contextlib.ExitStack, report: ProgressCallback) -> _Source:
    """A repository over http(s) or ssh: the commit's pack, capped and measured; a large one
    into a scratch repository on disk (deleted when ``stack`` ends), so its objects are read
    one at a time."""
    import tempfile

    from dulwich.errors import GitProtocolError, HangupException

    chosen: dict[str, Any] = {}

    def wants(refs: dict[Any, Any], depth: int | None = None) -> list[bytes]:
        resolution = resolve(remote_refs(refs), ref, shown)
        chosen["resolution"], chosen["refs"] = resolution, refs
        if resolution.needs_history:  # a short id: look for it in the whole history
            return [] if depth else _history_wants(refs)
        return [resolution.want.encode("ascii")]  # type: ignore[union-attr]

    folder: list[str] = []

    def scratch(name: str) -> Any:
        if not folder:
            folder.append(stack.enter_context(tempfile.TemporaryDirectory(
                prefix="lemon-fetch-")))
        return _scratch_repo(folder[0], name, stack)

    shallow = True
    try:
        target = _fetch(client, path, wants, 1, limits, lambda: scratch("shallow"))
        retry = chosen["resolution"].needs_history
    except (GitProtocolError, KeyError) as exc:
        if isinstance(exc, HangupException) or not _shallow_refused(chosen, exc):
            raise
        retry = True
    if retry:
        shallow = False
        report(1, 3, f"looking for {ref} in the history of {shown}")
        found: Resolution = chosen["resolution"]
        target = _fetch(client, path,
                        lambda refs, depth=None: _history_wants(refs) or (
                            [found.want.encode("ascii")] if found.want else []), None, limits,
                        lambda: scratch("full"))
    return _Source(target.object_store, chosen["resolution"], chosen["refs"], shallow)


@contextlib.contextmanager
def _commit_at(url: str, ref: str | None, auth: Auth | None, secrets: tuple[str, ...],
               limits: FetchLimits, report: ProgressCallback) -> Iterator[tuple[_Source, Any]]:
    """The fetched objects of ``url`` and the commit ``ref`` names there, for the block (the
    client, and any scratch repository the fetch made, are closed and removed after it)."""
    from dulwich.client import LocalGitClient

    shown = public_url(url)
    with git_errors(url, secrets), contextlib.ExitStack() as stack:
        client, path = open_client(url, auth)
        stack.callback(client.close)
        source = (_local(client, path, ref, shown, stack) if isinstance(client, LocalGitClient)
                  else _remote(client, path, ref, shown, limits, stack, report))
        resolution = source.resolution
        commit_id = (resolution.want if resolution.want is not None
                     else _find_prefix(source.store, resolution.prefix or "",
                                       _history_wants(source.refs), shown, limits))
        yield source, _peel_to_commit(source.store, commit_id, shown, limits)


def fetch_tree(url: str, ref: str | None, dest: Path, *, subdirectory: str | None = None,
               auth: Auth | None = None, secrets: tuple[str, ...] = (),
               progress: ProgressCallback | None = None,
               limits: FetchLimits = DEFAULT_LIMITS) -> FetchedTree:
    """Fetch the commit ``ref`` names (None: the default branch) from ``url`` and write its
    tree, or its folder ``subdirectory``, into the empty folder ``dest``. Every transport
    (http(s), ssh, ``file://``) is held to ``limits``; only the objects of the chosen folder
    are read, each by its header before its body, and files are streamed to disk. Nothing
    fetched is run; on failure a :class:`GitSourceError` says why and ``dest`` may hold part
    of the files (the caller owns and deletes it)."""
    shown = public_url(url)
    report = progress or (lambda done, total, message: None)
    report(0, 3, f"fetching {shown}" + (f" @{ref}" if ref else ""))
    with _commit_at(url, ref, auth, secrets, limits, report) as (source, commit):
        resolution = source.resolution
        sha = commit.id.decode("ascii")
        report(2, 3, f"writing the files of {sha[:12]}")
        tree = find_tree(source.store, commit.tree, subdirectory, sha, limits)
        checkout = write_tree(source.store, tree, dest, limits=limits, root=subdirectory or "")
        trees = folder_ids(source.store, tree, limits, subdirectory or "")
    report(3, 3, f"fetched {checkout.files} files at {sha[:12]}")
    name = resolution.name
    notes = checkout.notes if source.shallow else (*checkout.notes, FULL_HISTORY_NOTE)
    return FetchedTree(commit=sha, ref_name=escape(name) if name else None,
                       shallow=source.shallow, notes=notes, files=checkout.files,
                       bytes=checkout.bytes, trees=trees)


@attrs.frozen
class UpstreamTrees:
    """What :func:`upstream_trees` read: the ``commit`` the ref points at and the git tree id
    of each asked folder there (None: no folder at that path now)."""

    commit: str
    trees: dict[str, str | None]


def upstream_trees(url: str, ref: str | None, folders: list[str], *,
                   auth: Auth | None = None, secrets: tuple[str, ...] = (),
                   limits: FetchLimits = DEFAULT_LIMITS) -> UpstreamTrees:
    """The tree id of each of ``folders`` (paths in the repository, ``""`` the root) at the
    commit ``ref`` names on ``url`` now: one fetch of that commit for them all (the same
    capped, shallow-first fetch as :func:`fetch_tree`), and only the trees on the way to
    each folder are read; nothing is written. How ``outdated`` judges each installed skill
    by its own folder, not by the repository's commit."""
    with _commit_at(url, ref, auth, secrets, limits,
                    lambda done, total, message: None) as (source, commit):
        sha = commit.id.decode("ascii")
        trees: dict[str, str | None] = {}
        for folder in dict.fromkeys(f.strip("/") for f in folders):
            try:
                trees[folder] = find_tree(source.store, commit.tree, folder or None, sha,
                                          limits).decode("ascii")
            except GitSourceError:  # the folder is gone (or a file) upstream now
                trees[folder] = None
    return UpstreamTrees(sha, trees)


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
