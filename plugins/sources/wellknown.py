"""The ``well-known`` skill source: skills a site publishes under ``/.well-known/``.

Identifiers: ``well-known:<https-URL>#<name>`` (one skill of the site at that URL), and
``well-known:<https-URL>`` (the site: listed and searched, not installed whole). The URL may
also name a skill the way the ``skills`` CLI does (``…/.well-known/agent-skills/<name>``). Plain
``http://`` is accepted only for a loopback host; credentials in the URL are refused (put them
in ``~/.netrc``).

The index is ``/.well-known/agent-skills/index.json`` (v0.2: one artifact per skill, a
``SKILL.md`` or an archive, each with a ``sha256:`` digest), else ``/.well-known/skills/
index.json`` (v0.1: a list of files per skill, no digests), each first below the URL's own path,
then at the host's root (:mod:`lemon_core.source_kit.wellknown`). Every GET is bounded
(:mod:`lemon_core.source_kit.web`: size, time, no redirect to another host); an artifact whose
bytes do not match its digest refuses the install (the staging folder is discarded, the
installed skill stays as it was); an archive is unpacked by
:func:`lemon_core.source_kit.unpack.unpack` (no links, no absolute or ``..`` names, no devices,
within the skill caps).

The upstream hash (what ``outdated`` compares) is the entry's digest (v0.2), or ``sha256:``
over the files' paths and SHA-256 (v0.1, which has none: the files are downloaded to know).
``LEMON_WELL_KNOWN`` (URLs separated by spaces or commas) names the sites remote search and
``discover`` ask. Trust ``community``.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core import hookimpl
from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import FetchResult, SearchHit, SourceRef

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.protocols import ProgressCallback, TrustLevel
    from lemon_core.source_kit.wellknown import IndexEntry

PREFIX = "well-known:"
SITES_ENV = "LEMON_WELL_KNOWN"
INDEX_MAX_BYTES = 4 * 1024 * 1024
INDEX_SECONDS = 60.0
V1_NOTE = "a v0.1 index has no digests: the files are as the site served them"
_SKILL_PATH = re.compile(r"(.*?)/\.well-known/(?:agent-skills|skills)(?:/([^/]+))?"
                         r"(?:/(?:index\.json|SKILL\.md))?/?\Z")


def _site(text: str) -> tuple[str, str | None]:
    """(canonical base URL, skill name or None) of ``text``; a UsageError when unusable."""
    from lemon_core.source_kit.transport import is_loopback
    from lemon_core.source_kit.wellknown import NAME

    url, _, name = text.partition("#")
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError(f"{PREFIX}{text}: give an https:// URL (well-known:https://HOST[/PATH]"
                         "[#NAME])")
    if parts.scheme == "http" and not is_loopback(parts.hostname):
        raise UsageError(f"{PREFIX}{text}: plain http is allowed only for a loopback host; "
                         "use https://")
    if parts.username is not None or parts.password is not None:
        raise UsageError(f"{PREFIX}: the URL holds credentials; put them in ~/.netrc "
                         "(machine HOST login USER password SECRET) instead")
    if parts.query or any(ord(c) < 0x21 or ord(c) == 0x7F for c in url):
        raise UsageError(f"{PREFIX}: the URL holds a query, a space or a control character")
    path = parts.path.rstrip("/")
    found = _SKILL_PATH.match(parts.path)
    if found:
        path = found.group(1).rstrip("/")
        if found.group(2) and found.group(2) != "index.json" and not name:
            name = found.group(2)
    if name and not NAME.match(name):
        raise UsageError(f"{PREFIX}: {name!r} is not a skill name (a-z, 0-9 and '-', at most "
                         "64)")
    netloc = parts.netloc.lower()
    return urllib.parse.urlunsplit((parts.scheme, netloc, path, "", "")), name or None


def identifier(base: str, name: str) -> str:
    return f"{PREFIX}{base}#{name}"


def files_digest(files: dict[str, bytes]) -> str:
    """The upstream hash of a v0.1 skill: sha256 over each path and its content's SHA-256."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.encode() + b"\0" + hashlib.sha256(files[path]).hexdigest().encode()
                      + b"\n")
    return "sha256:" + digest.hexdigest()


class WellKnownSource:
    name = "well-known"
    order = 45
    forms = ("well-known:<https-URL>#<skill name>",)

    def __init__(self) -> None:
        self._indexes: dict[str, tuple[float, list[IndexEntry], list[str]]] = {}

    def parse(self, identifier_text: str) -> SourceRef | None:
        if not identifier_text.startswith(PREFIX):
            return None
        base, name = _site(identifier_text[len(PREFIX):].strip())
        canonical = identifier(base, name) if name else PREFIX + base
        label = name or (urllib.parse.urlsplit(base).hostname or "site")
        return SourceRef(self.name, identifier_text, canonical, label)

    def trust_level(self, ref: SourceRef) -> TrustLevel:
        return "community"

    # -- the index ------------------------------------------------------------------------------

    def index(self, base: str, ctx: LemonContext) -> tuple[list[IndexEntry], list[str]]:
        """The entries of the site's index (v0.2 first, then v0.1) and notes on those left out.

        :raises LemonError: no index answers, or the one found is unusable.
        """
        from lemon_core.jsondata import loads
        from lemon_core.source_kit.web import WebError, get
        from lemon_core.source_kit.wellknown import index_urls, parse_index

        cached = self._indexes.get(base)
        if cached and time.monotonic() - cached[0] < INDEX_SECONDS:
            return cached[1], cached[2]
        tried = []
        for url, version in index_urls(base):
            try:
                body = get(url, ctx=ctx, max_bytes=INDEX_MAX_BYTES,
                           headers={"Accept": "application/json"}).body
            except WebError as exc:
                if exc.status == 404:
                    tried.append(url)
                    continue
                raise LemonError(f"well-known: {exc}") from None
            try:
                entries, notes = parse_index(loads(body), url, version)
            except Exception as exc:  # noqa: BLE001 - any unusable document is said so
                message = getattr(exc, "message", None) or str(exc)
                raise LemonError(f"well-known: {url}: {message}; the site's index cannot be "
                                 "used") from None
            self._indexes[base] = (time.monotonic(), entries, notes)
            return entries, notes
        raise LemonError(f"well-known: {base} publishes no skill index (tried "
                         f"{', '.join(tried)})")

    def _entry(self, ref: SourceRef, ctx: LemonContext) -> tuple[str, IndexEntry]:
        base, name = _site((ref.canonical_id or ref.identifier)[len(PREFIX):])
        entries, _notes = self.index(base, ctx)
        if name is None:
            names = ", ".join(e.name for e in entries[:20]) or "none"
            raise UsageError(f"{PREFIX}{base} is a site, not a skill; it publishes: {names}. "
                             f"Install one with '{PREFIX}{base}#NAME'")
        entry = next((e for e in entries if e.name == name), None)
        if entry is None:
            raise LemonError(f"well-known: {base} publishes no skill {name!r}; see 'lemon "
                             f"skill discover --source {PREFIX}{base} \"\"'")
        return base, entry

    # -- install --------------------------------------------------------------------------------

    def _get(self, url: str, ctx: LemonContext, max_bytes: int) -> bytes:
        from lemon_core.source_kit.transport import is_loopback
        from lemon_core.source_kit.web import WebError, get

        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "https" and not is_loopback(parts.hostname):
            raise LemonError(f"well-known: refused {url}: artifacts come over https only")
        try:
            return get(url, ctx=ctx, max_bytes=max_bytes).body
        except WebError as exc:
            raise LemonError(f"well-known: {exc}") from None

    def _v1_files(self, entry: IndexEntry, ctx: LemonContext) -> dict[str, bytes]:
        from lemon_core.fsio.tree import DEFAULT_LIMITS

        files: dict[str, bytes] = {}
        total = 0
        for path in entry.files:
            quoted = "/".join(urllib.parse.quote(p) for p in path.split("/"))
            data = self._get(urllib.parse.urljoin(entry.base or "", quoted), ctx,
                             DEFAULT_LIMITS.max_file_bytes)
            total += len(data)
            if total > DEFAULT_LIMITS.max_total_bytes:
                raise LemonError(f"well-known: {entry.name} is larger than "
                                 f"{DEFAULT_LIMITS.max_total_bytes} bytes; refused")
            files[path] = data
        return files

    def fetch(self, ref: SourceRef, dest: Path, ctx: LemonContext,
              progress: ProgressCallback | None) -> FetchResult:
        from lemon_core.fsio.tree import DEFAULT_LIMITS
        from lemon_core.source_kit.unpack import UnpackRefused, unpack

        _base, entry = self._entry(ref, ctx)
        if entry.version == 1:
            files = self._v1_files(entry, ctx)
            upstream = files_digest(files)
            self._pinned(ref, upstream)
            for done, (path, data) in enumerate(sorted(files.items()), 1):
                _write_new(dest, path, data)
                if progress is not None:
                    progress(done, len(files), path)
            return FetchResult(revision=upstream, upstream_hash=upstream,
                               notes=(V1_NOTE,))
        self._pinned(ref, entry.digest)
        limit = (DEFAULT_LIMITS.max_file_bytes if entry.kind == "skill-md"
                 else DEFAULT_LIMITS.max_total_bytes)
        data = self._get(entry.url or "", ctx, limit)
        actual = "sha256:" + hashlib.sha256(data).hexdigest()
        if actual != entry.digest:
            raise LemonError(f"well-known: {entry.name}: the file at {entry.url} does not match "
                             f"the index's digest ({entry.digest}, got {actual}); nothing was "
                             "installed or changed")
        if entry.kind == "skill-md":
            _write_new(dest, "SKILL.md", data)
        else:
            try:
                unpack(data, dest, hint=urllib.parse.urlsplit(entry.url or "").path)
            except UnpackRefused as exc:
                raise LemonError(f"well-known: {entry.name}: {exc}") from None
            if not (dest / "SKILL.md").is_file():
                raise LemonError(f"well-known: {entry.name}: the archive has no SKILL.md at "
                                 "its root")
        return FetchResult(revision=entry.digest, upstream_hash=entry.digest)

    @staticmethod
    def _pinned(ref: SourceRef, upstream: str | None) -> None:
        if ref.revision and ref.revision != upstream:
            raise LemonError(f"well-known: {ref.name} was asked at {ref.revision} but the site "
                             f"now serves {upstream}; a site keeps no old versions")

    def upstream_hash(self, ref: SourceRef, ctx: LemonContext) -> str | None:
        try:
            _base, entry = self._entry(ref, ctx)
            if entry.version == 2:
                return entry.digest
            return files_digest(self._v1_files(entry, ctx))
        except LemonError:
            return None

    # -- listing and search ----------------------------------------------------------------------

    def catalog(self, ctx: LemonContext, *, url: str | None = None,
                query: str | None = None) -> list[dict[str, Any]]:
        """The skills of the site ``url`` (default: every site of ``LEMON_WELL_KNOWN``), as
        dicts with ``id`` (the install identifier), ``name``, ``description``, ``site``,
        ``version`` (1 or 2), ``type`` and ``digest``; ``query`` keeps those whose name or
        description holds every word of it."""
        sites = [url] if url else configured_sites(ctx)
        words = (query or "").lower().split()
        rows = []
        for site in sites:
            base, _name = _site(site.removeprefix(PREFIX))
            entries, _notes = self.index(base, ctx)
            for entry in entries:
                text = f"{entry.name} {entry.description}".lower()
                if all(w in text for w in words):
                    rows.append({"id": identifier(base, entry.name), "name": entry.name,
                                 "description": entry.description, "site": base,
                                 "version": entry.version, "type": entry.kind,
                                 "digest": entry.digest})
        return rows

    def search_in(self, ref: SourceRef, query: str, ctx: LemonContext,
                  limit: int) -> list[SearchHit]:
        """The hits of one site (``well-known:URL``), best first."""
        return self._rank(self.catalog(ctx, url=ref.canonical_id or ref.identifier,
                                       query=None), query, limit)

    def search(self, query: str, ctx: LemonContext, limit: int) -> list[SearchHit]:
        if not configured_sites(ctx):
            return []
        return self._rank(self.catalog(ctx), query, limit)

    def _rank(self, rows: list[dict[str, Any]], query: str, limit: int) -> list[SearchHit]:
        words = [w for w in re.split(r"[^a-z0-9]+", query.lower()) if w]
        scored = []
        for row in rows:
            name, text = row["name"], row["description"].lower()
            score = sum((2.0 if w in name else 0.0) + (1.0 if w in text else 0.0)
                        for w in words) / (3.0 * max(len(words), 1))
            if score > 0 or not words:
                scored.append((score, row))
        scored.sort(key=lambda pair: (-pair[0], pair[1]["id"]))
        return [SearchHit(row["id"], row["name"], row["description"], self.name,
                          round(score, 4)) for score, row in scored[:limit]]


def configured_sites(ctx: LemonContext) -> list[str]:
    value = ctx.getenv(SITES_ENV) or ""
    return [s for s in re.split(r"[\s,]+", value) if s]


def _write_new(dest: Path, path: str, data: bytes) -> None:
    """Write ``dest/path`` (folders made on the way), never through a link or over a file."""
    from lemon_core.fsio.names import file_name_problem

    parts = path.split("/")
    for part in parts:
        problem = file_name_problem(part)
        if problem is not None:
            raise LemonError(f"well-known: refused the file name {path!r}: a name {problem}")
    dest.mkdir(parents=True, exist_ok=True)
    current = dest
    for part in parts[:-1]:
        current = current / part
        try:
            os.mkdir(current, 0o755)
        except FileExistsError:
            if current.is_symlink() or not current.is_dir():
                raise LemonError(f"well-known: {path!r} lies below a file") from None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(current / parts[-1], flags, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


@hookimpl
def lemon_register_sources(register: Callable[[Any], None]) -> None:
    register(WellKnownSource())


__all__ = ["PREFIX", "WellKnownSource", "configured_sites", "files_digest", "identifier"]
