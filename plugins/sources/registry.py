"""The ``registry`` skill source: ``<namespace>/<category…>/<name>`` refs on a skills registry.

The registry is an HTTP service at ``LEMON_REGISTRY_URL`` (default
``https://skills.lemon.agent``), with the two calls of the reference:

- ``GET /search?q=<query>`` -> ``{"skills": [{"ref" (or "id"), "name", "description"}]}``;
- ``GET /skills/<ref>`` -> the skill's record: ``clone_url`` (or ``url``), a git repository the
  download is delegated to, and optionally ``git_ref`` (a branch, tag or commit of it),
  ``commit`` (the exact commit, also the upstream hash) and ``subdirectory`` (the skill's
  folder in the repository). A record may echo its own ``ref``/``id``; they are not git refs.

Trust: ``official`` for the ``official/`` namespace, ``community`` for any other. Answers are
bounded (1 MiB for a search, 256 KiB for a record), time out, and a redirect to another host is
refused (:mod:`lemon_core.source_kit.web`). A record may name only an ``https://`` or
``http://`` repository: a remote service never makes lemon read a local path.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef
from lemon_core.text import unsafe_reason

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback, TrustLevel

DEFAULT_URL = "https://skills.lemon.agent"
URL_ENV = "LEMON_REGISTRY_URL"
SEARCH_MAX_BYTES = 1024 * 1024
RECORD_MAX_BYTES = 256 * 1024
_SEGMENT = re.compile(r"[A-Za-z0-9_-]+\Z")
_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?\Z")


def base_url(ctx: LemonContext | None) -> str:
    value = ctx.getenv(URL_ENV) if ctx is not None else None
    return (value or DEFAULT_URL).rstrip("/")


def _looks_like_ref(identifier: str) -> bool:
    """Shaped like a registry ref (the router's last resort): two or more slashes, no scheme,
    not a path. Such text is this source's to accept or refuse with a reason."""
    return (identifier.count("/") >= 2 and ":" not in identifier
            and not identifier.startswith(("/", ".", "~")))


class RegistrySource:
    name = "registry"
    order = 70
    forms = ("<namespace>/<category>/<name> (a registry ref)",)

    def parse(self, identifier: str) -> SourceRef | None:
        if not _looks_like_ref(identifier):
            return None
        segments = identifier.split("/")
        for segment in segments:
            if not _SEGMENT.match(segment):
                why = (unsafe_reason(segment) or ("", ""))[1] or (
                    "is empty" if not segment else f"{segment!r} holds other characters")
                raise UsageError(f"the registry ref {identifier!r} is malformed: each part is "
                                 f"letters, digits, '-' or '_' (a part {why})")
        return SourceRef(self.name, identifier, identifier, segments[-1])

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        return "official" if ref.identifier.split("/", 1)[0].lower() == "official" else "community"

    # -- the registry's answers ----------------------------------------------------------------

    def record(self, ref: SourceRef, ctx: LemonContext) -> dict[str, Any]:
        """The registry's record of ``ref``, checked: a dict with an http(s) ``clone_url``."""
        from lemon_core.source_kit.web import WebError, get_json

        quoted = "/".join(urllib.parse.quote(s, safe="") for s in ref.identifier.split("/"))
        url = f"{base_url(ctx)}/skills/{quoted}"
        try:
            data = get_json(url, ctx=ctx, max_bytes=RECORD_MAX_BYTES,
                            headers={"Accept": "application/json"})
        except WebError as exc:
            if exc.status == 404:
                raise LemonError(f"the registry {base_url(ctx)} has no skill {ref.identifier!r};"
                                 " search with 'lemon skill search --remote'") from None
            raise LemonError(f"registry: {exc}") from None
        if not isinstance(data, dict):
            raise LemonError(f"registry: the record of {ref.identifier!r} is not a JSON object")
        clone = data.get("clone_url") or data.get("url")
        if not isinstance(clone, str) or urllib.parse.urlsplit(clone).scheme not in (
                "https", "http") or unsafe_reason(clone) or " " in clone:
            raise LemonError(f"registry: the record of {ref.identifier!r} names no usable "
                             "repository (clone_url must be an https:// or http:// URL)")
        for field in ("git_ref", "commit", "subdirectory"):
            value = data.get(field)
            if value is not None and (not isinstance(value, str) or unsafe_reason(value)):
                raise LemonError(f"registry: the record of {ref.identifier!r} has an unusable "
                                 f"{field!r}")
        commit = data.get("commit")
        if commit is not None and not _COMMIT.match(commit):
            raise LemonError(f"registry: the record of {ref.identifier!r} has a 'commit' that "
                             "is not a full commit id")
        return {**data, "clone_url": clone}

    def fetch(self, ref: SourceRef, dest: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        from lemon_core.source_kit import check_subdirectory, fetch_tree

        record = self.record(ref, ctx)
        subdirectory = record.get("subdirectory")
        if subdirectory:
            subdirectory = check_subdirectory(subdirectory)
        pinned = ref.revision or record.get("commit")  # a sync pins the locked commit
        fetched = fetch_tree(record["clone_url"], pinned or record.get("git_ref"), dest,
                             subdirectory=subdirectory, progress=progress)
        if pinned and fetched.commit != pinned:
            raise LemonError(f"registry: {ref.identifier!r} was asked at commit {pinned} but "
                             f"the repository gave {fetched.commit}")
        return FetchResult(revision=fetched.commit, notes=fetched.notes)

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        """The record's ``commit`` when it pins one, else the commit its ``git_ref`` (or the
        default branch) points at in the repository now; None when neither can be asked."""
        from lemon_core.source_kit import upstream_commit

        try:
            record = self.record(ref, ctx)
            if record.get("commit"):
                return str(record["commit"])
            return upstream_commit(record["clone_url"], record.get("git_ref"))
        except LemonError:
            return None

    def search(self, query: str, ctx: LemonContext, limit: int) -> list[SearchHit]:
        """The registry's hits for ``query``, at most ``limit``; hits whose ref is malformed are
        left out (a registry cannot smuggle another kind of identifier into an install).

        :raises LemonError: when the registry cannot be asked (the caller reports it).
        """
        from lemon_core.source_kit.web import WebError, get_json

        url = f"{base_url(ctx)}/search?{urllib.parse.urlencode({'q': query})}"
        try:
            data = get_json(url, ctx=ctx, max_bytes=SEARCH_MAX_BYTES,
                            headers={"Accept": "application/json"})
        except WebError as exc:
            raise LemonError(f"registry: {exc}") from None
        items = data.get("skills") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise LemonError(f"registry: the answer of {base_url(ctx)}/search has no 'skills' "
                             "list")
        hits: list[SearchHit] = []
        for item in items:
            hit = self._hit(item)
            if hit is not None:
                hits.append(hit)
            if len(hits) >= limit:
                break
        count = len(hits)
        return [SearchHit(h.identifier, h.name, h.description, h.source, 1.0 - i / (count + 1))
                for i, h in enumerate(hits)]

    def _hit(self, item: Any) -> SearchHit | None:
        if not isinstance(item, dict):
            return None
        ref = item.get("ref") or item.get("id")
        if not isinstance(ref, str):
            return None
        try:
            parsed = self.parse(ref)
        except UsageError:
            return None
        if parsed is None:
            return None
        name = item.get("name") if isinstance(item.get("name"), str) else parsed.name
        description = item.get("description")
        return SearchHit(ref, name, description if isinstance(description, str) else "",
                         self.name)


@hookimpl
def lemon_register_sources(register):
    register(RegistrySource())
