"""The ``hermes`` skill source: the official Hermes Agent catalog (``NousResearch/hermes-agent``).

Identifiers: ``hermes:<collection>/<category…>/<skill>``. The collection ``bundled`` (alias
``skills``) is the repository folder ``skills/``, ``optional`` (alias ``optional-skills``) is
``optional-skills/``; categories nest, and a single segment is allowed (category ``other``).
Every segment is ``[A-Za-z0-9._-]+`` and never ``.`` or ``..``. Trust ``official``.

Where the files come from (settings are environment variables):

- ``LEMON_HERMES_REPO``: a local checkout; the catalog is read from its folders and an install
  is a safe copy (:func:`lemon_core.fsio.copy.copy_tree`).
- Otherwise GitHub's API (``LEMON_HERMES_API_URL``, default
  ``https://api.github.com/repos/NousResearch/hermes-agent``) and raw host
  (``LEMON_HERMES_RAW_URL``, default ``https://raw.githubusercontent.com/NousResearch/hermes-agent``)
  at ``LEMON_HERMES_REF`` (default ``main``): the branch is resolved to one commit
  (``/commits/<ref>``), the commit's recursive tree listed once (``/git/trees/<commit>``), and
  only the chosen skill's files are downloaded, one GET each (``<raw>/<commit>/<path>``), each
  checked against its git blob id. The multi-GB repository is never cloned. ``GITHUB_TOKEN``
  is sent only to ``api.github.com``, and never shown.

The upstream hash is the git tree id of the skill's folder (every file counts, not only
SKILL.md), or with a checkout the folder's bundle hash; the revision is the commit.
"""

from __future__ import annotations

import time
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

from .download import download, git_blob_sha
from .layout import (
    ALIASES,
    FOLDERS,
    LISTING_SECONDS,
    MANIFEST_MAX_BYTES,
    PREFIX,
    SHA,
    TREE_MAX_BYTES,
    Entry,
    Settings,
    checkout_entries,
    checkout_head,
    frontmatter,
    raw_url,
    segments_reason,
    settings,
)

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback, TrustLevel

class HermesSource:
    name = "hermes"
    order = 40
    forms = ("hermes:<bundled|optional>/<category…>/<skill>",)

    def __init__(self) -> None:
        self._listings: dict[tuple[str, str], tuple[float, str, list[dict[str, Any]]]] = {}

    def parse(self, identifier: str) -> SourceRef | None:
        if not identifier.startswith(PREFIX):
            return None
        collection, _, rest = identifier[len(PREFIX):].partition("/")
        if collection not in ALIASES:
            raise UsageError(f"{identifier!r}: the Hermes collection must be 'bundled' or "
                             "'optional' (hermes:<collection>/<category…>/<skill>)")
        parts = rest.split("/")
        reason = "a skill is missing after the collection" if not rest else segments_reason(parts)
        if reason:
            raise UsageError(f"{identifier!r} is not a Hermes skill id: {reason}")
        entry = Entry(ALIASES[collection], rest)
        return SourceRef(self.name, identifier, entry.id, entry.key)

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        return "official"

    @staticmethod
    def _entry(ref: SourceRef) -> Entry:
        collection, _, folder = (ref.canonical_id or ref.identifier)[len(PREFIX):].partition("/")
        return Entry(ALIASES[collection], folder)

    # -- the repository listing (remote) -------------------------------------------------------

    def _listing(self, ctx: LemonContext, conf: Settings) -> tuple[str, list[dict[str, Any]]]:
        """(commit, entries of the recursive tree), asked once per :data:`LISTING_SECONDS`."""
        from lemon_core.source_kit.web import WebError, get_json

        key = (conf.api, conf.ref)
        cached = self._listings.get(key)
        if cached and time.monotonic() - cached[0] < LISTING_SECONDS:
            return cached[1], cached[2]
        headers = {"Accept": "application/vnd.github+json"}
        if conf.token:
            headers["Authorization"] = f"Bearer {conf.token}"
        try:
            commit = conf.ref
            if not SHA.match(commit):
                data = get_json(f"{conf.api}/commits/{urllib.parse.quote(conf.ref, safe='')}",
                                ctx=ctx, headers=headers, max_bytes=1024 * 1024)
                commit = data.get("sha") if isinstance(data, dict) else None
                if not isinstance(commit, str) or not SHA.match(commit):
                    raise LemonError(f"hermes: {conf.api} gave no commit for {conf.ref!r}")
            tree = get_json(f"{conf.api}/git/trees/{commit}?recursive=1", ctx=ctx,
                            headers=headers, max_bytes=TREE_MAX_BYTES)
        except WebError as exc:
            raise LemonError(f"hermes: {exc}") from None
        items = tree.get("tree") if isinstance(tree, dict) else None
        if not isinstance(items, list):
            raise LemonError(f"hermes: the listing of commit {commit} has no 'tree'")
        if tree.get("truncated"):
            raise LemonError("hermes: the server truncated the repository listing; set "
                             "LEMON_HERMES_REPO to a local checkout instead")
        entries = [e for e in items if isinstance(e, dict) and isinstance(e.get("path"), str)
                   and isinstance(e.get("sha"), str)]
        self._listings[key] = (time.monotonic(), commit, entries)
        return commit, entries

    # -- the catalog ----------------------------------------------------------------------------

    def _entries(self, ctx: LemonContext, conf: Settings) -> list[Entry]:
        if conf.checkout is not None:
            return checkout_entries(conf.checkout)
        _commit, items = self._listing(ctx, conf)
        trees = {e["path"]: e["sha"] for e in items if e.get("type") == "tree"}
        found = []
        for item in items:
            path = item["path"]
            if item.get("type") != "blob" or not path.endswith("/SKILL.md"):
                continue
            root, _, folder = path[: -len("/SKILL.md")].partition("/")
            collection = {v: k for k, v in FOLDERS.items()}.get(root)
            if collection and folder and segments_reason(folder.split("/")) is None:
                found.append(Entry(collection, folder, trees.get(path[: -len("/SKILL.md")])))
        return found

    def catalog(self, ctx: LemonContext, *, query: str | None = None,
                category: str | None = None, collection: str | None = None,
                details: bool = False) -> list[dict[str, Any]]:
        """The catalog's skills, filtered and sorted by (collection, category, name): dicts
        with ``id``, ``key``, ``name``, ``description``, ``category``, ``collection``, ``path``
        and ``sha``. Names and descriptions come from SKILL.md only with ``details`` (one
        download per listed skill); a query then also matches descriptions."""
        conf = settings(ctx)
        if collection not in (None, "", "all") and collection not in ALIASES:
            raise UsageError(f"unknown Hermes collection {collection!r}; use bundled, "
                             "optional or all")
        wanted = ALIASES.get(collection or "")
        entries = [e for e in self._entries(ctx, conf)
                   if (wanted is None or e.collection == wanted)
                   and (not category or e.category == category)]
        rows = []
        for entry in entries:
            name, description = entry.key, ""
            if details:
                name, description = self._manifest(ctx, conf, entry)
            if query and not any(query.lower() in text.lower() for text in (
                    name, entry.key, entry.category, description)):
                continue
            rows.append({"id": entry.id, "key": entry.key, "name": name,
                         "description": description, "category": entry.category,
                         "collection": entry.collection, "path": entry.path, "sha": entry.sha})
        rows.sort(key=lambda r: (r["collection"], r["category"], r["name"]))
        return rows

    def _manifest(self, ctx: LemonContext, conf: Settings, entry: Entry) -> tuple[str, str]:
        """(name, description) from the skill's SKILL.md frontmatter; the key and "" when it
        cannot be read or parsed."""
        from lemon_core.fsio.read import FileProblem, read_bytes
        from lemon_core.source_kit.web import WebError, get

        try:
            if conf.checkout is not None:
                data = read_bytes(conf.checkout / entry.path / "SKILL.md", MANIFEST_MAX_BYTES,
                                  nofollow=True) or b""
            else:
                commit, _ = self._listing(ctx, conf)
                data = get(raw_url(conf, commit, f"{entry.path}/SKILL.md"), ctx=ctx,
                           max_bytes=MANIFEST_MAX_BYTES).body
        except (FileProblem, WebError):
            return entry.key, ""
        return frontmatter(data, entry.key)

    def search(self, query: str, ctx: LemonContext, limit: int) -> list[SearchHit]:
        conf = settings(ctx)
        words = query.lower()
        scored = []
        for entry in self._entries(ctx, conf):
            score = (1.0 if entry.key.lower() == words else 0.8 if words in entry.key.lower()
                     else 0.5 if words in entry.category.lower() else 0.0)
            if score:
                scored.append((score, entry))
        scored.sort(key=lambda pair: (-pair[0], pair[1].id))
        hits = []
        for score, entry in scored[:limit]:
            name, description = self._manifest(ctx, conf, entry)
            hits.append(SearchHit(entry.id, name, description, self.name, score))
        return hits

    # -- install --------------------------------------------------------------------------------

    def fetch(self, ref: SourceRef, dest: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        conf = settings(ctx)
        entry = self._entry(ref)
        if conf.checkout is not None:
            from lemon_core.fsio.copy import CopyRefused, copy_tree

            folder = conf.checkout / entry.path
            if not (folder / "SKILL.md").is_file():
                raise LemonError(f"hermes: the checkout {conf.checkout} has no {entry.path}/"
                                 "SKILL.md; see 'lemon skill hermes'")
            head = checkout_head(conf.checkout)
            if ref.revision and ref.revision != head:
                at = head or "an unknown commit"
                raise LemonError(f"hermes: the checkout {conf.checkout} is at {at}, not the "
                                 f"asked {ref.revision}; check it out or unset LEMON_HERMES_REPO")
            try:
                copy_tree(folder, dest)
            except CopyRefused as exc:
                raise LemonError(f"hermes: cannot copy {entry.path}: {exc}") from None
            return FetchResult(revision=head)
        if ref.revision:  # a pinned install (sync): that exact commit, not the branch
            if not SHA.match(ref.revision):
                raise LemonError(f"hermes: the revision {ref.revision!r} is not a commit id")
            conf = attrs.evolve(conf, ref=ref.revision)
        commit, items = self._listing(ctx, conf)
        prefix = entry.path + "/"
        files = [e for e in items if e["path"].startswith(prefix) and e.get("type") != "tree"]
        if not any(e["path"] == prefix + "SKILL.md" for e in files):
            raise LemonError(f"hermes: {ref.identifier!r} is not in the catalog at commit "
                             f"{commit}; see 'lemon skill hermes'")
        notes = download(conf, ctx, commit, prefix, files, dest, progress)
        folder_id = next((e["sha"] for e in items
                          if e["path"] == entry.path and e.get("type") == "tree"), None)
        return FetchResult(revision=commit, notes=notes, upstream_hash=folder_id)

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        conf = settings(ctx)
        entry = self._entry(ref)
        try:
            if conf.checkout is not None:
                from lemon_core.fsio.tree import bundle_hash, scan_tree

                folder = conf.checkout / entry.path
                scan = scan_tree(folder)
                return None if scan.problems else bundle_hash(folder, scan.entries)
            _commit, items = self._listing(ctx, conf)
        except (LemonError, OSError):
            return None
        return next((e["sha"] for e in items
                     if e["path"] == entry.path and e.get("type") == "tree"), None)


@hookimpl
def lemon_register_sources(register):
    register(HermesSource())


__all__ = ["Entry", "HermesSource", "Settings", "git_blob_sha", "settings"]
