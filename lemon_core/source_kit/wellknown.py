"""The well-known skill index formats (Agent Skills Discovery via well-known URIs).

Two published versions, read and written by lemon:

- v0.2: ``/.well-known/agent-skills/index.json`` = ``{"$schema": SCHEMA_V2, "skills": [{name,
  type ("skill-md" | "archive"), description, url, digest ("sha256:<64 hex>")}]}``; ``url`` is
  resolved against the index URL (RFC 3986), the digest is the SHA-256 of the artifact's raw
  bytes (SKILL.md, or the ``.tar.gz``/``.zip`` holding the skill folder at its root).
- v0.1: ``/.well-known/skills/index.json`` = ``{"skills": [{name, description, files}]}``
  (what the ``skills`` CLI reads): each file is served at ``/.well-known/skills/<name>/<path>``;
  no digests.

:func:`parse_index` checks a document and returns its :class:`IndexEntry` records; an entry
that breaks the rules (a name that is not an Agent Skills name, a file path with ``..``, a
digest that is not ``sha256:`` + 64 hex, an unknown ``type``) is left out with a note, never
trusted. Unknown fields are ignored.
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Any

import attrs

V2_PATH = ".well-known/agent-skills"
V1_PATH = ".well-known/skills"
INDEX_FILE = "index.json"
SCHEMA_V2 = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
#: An Agent Skills name: 1-64 of a-z, 0-9 and '-', no leading, trailing or double '-'.
NAME = re.compile(r"[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}\Z")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")
#: v0.1 file paths: printable ASCII without \ ? # [ ].
_FILE_CHARS = re.compile(r"[\x20-\x7e]+\Z")
MAX_DESCRIPTION = 1024
MAX_FILES = 2000


@attrs.frozen
class IndexEntry:
    """One skill of an index. ``version`` 2: ``kind`` (``skill-md``/``archive``), ``url``
    (absolute) and ``digest``; version 1: ``files`` (relative paths) and ``base`` (the URL
    the files are below, ending in ``/``)."""

    name: str
    description: str
    version: int
    kind: str = "files"
    url: str | None = None
    digest: str | None = None
    files: tuple[str, ...] = ()
    base: str | None = None


def file_path_problem(path: Any) -> str | None:
    """Why ``path`` cannot be a v0.1 file of a skill, or None."""
    if not isinstance(path, str) or not path:
        return "is not a path"
    if not _FILE_CHARS.match(path) or any(c in path for c in "\\?#[]"):
        return "holds a character the format does not allow"
    parts = path.split("/")
    if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return "is absolute or has an empty, '.' or '..' step"
    return None


def _entry(item: Any, version: int, index_url: str) -> tuple[IndexEntry | None, str | None]:
    if not isinstance(item, dict):
        return None, "an entry that is not an object"
    name, description = item.get("name"), item.get("description")
    if not isinstance(name, str) or not NAME.match(name):
        return None, f"an entry whose name {name!r} is not an Agent Skills name"
    if not isinstance(description, str) or not description.strip():
        return None, f"{name}: no description"
    description = description[:MAX_DESCRIPTION]
    if version == 2:
        kind, url, digest = item.get("type"), item.get("url"), item.get("digest")
        if kind not in ("skill-md", "archive"):
            return None, f"{name}: an unknown type {kind!r}"
        if not isinstance(digest, str) or not DIGEST.match(digest):
            return None, f"{name}: no sha256 digest"
        if not isinstance(url, str) or not url or any(ord(c) < 0x21 for c in url):
            return None, f"{name}: no usable url"
        absolute = urllib.parse.urljoin(index_url, url)
        if urllib.parse.urlsplit(absolute).scheme not in ("http", "https"):
            return None, f"{name}: the url is not http(s)"
        return IndexEntry(name, description, 2, kind, absolute, digest), None
    files = item.get("files")
    if not isinstance(files, list) or not files or len(files) > MAX_FILES:
        return None, f"{name}: no usable files list"
    for path in files:
        problem = file_path_problem(path)
        if problem is not None:
            return None, f"{name}: the file {path!r} {problem}"
    if "SKILL.md" not in files:
        return None, f"{name}: the files do not include SKILL.md"
    base = urllib.parse.urljoin(index_url, f"{name}/")
    return IndexEntry(name, description, 1, files=tuple(dict.fromkeys(files)), base=base), None


def parse_index(document: Any, index_url: str, version: int) -> tuple[list[IndexEntry],
                                                                      list[str]]:
    """The usable entries of an index document and a note for each left out.

    :raises ValueError: the document is not an index of this version (no ``skills`` list, or
        a v0.2 ``$schema`` lemon does not know).
    """
    if not isinstance(document, dict) or not isinstance(document.get("skills"), list):
        raise ValueError("the index has no 'skills' list")
    schema = document.get("$schema")
    if version == 2 and schema is not None and schema != SCHEMA_V2:
        raise ValueError(f"the index names a schema lemon does not know ({str(schema)[:100]})")
    if version == 2 and schema is None:
        version = 1  # no $schema: a v0.1 document, as the RFC says
    entries: list[IndexEntry] = []
    notes: list[str] = []
    seen: set[str] = set()
    for item in document["skills"]:
        entry, note = _entry(item, version, index_url)
        if entry is not None and entry.name in seen:
            note = f"{entry.name}: listed twice"
            entry = None
        if entry is not None:
            seen.add(entry.name)
            entries.append(entry)
        elif note:
            notes.append(note)
    return entries, notes


def index_urls(base: str) -> list[tuple[str, int]]:
    """The index URLs to try for a site ``base``, in order: v0.2 then v0.1, each below the
    base's own path first, then at the host's root."""
    parts = urllib.parse.urlsplit(base)
    path = parts.path.rstrip("/")
    roots = [path] + ([""] if path else [])
    found = []
    for sub, version in ((V2_PATH, 2), (V1_PATH, 1)):
        for root in roots:
            found.append((urllib.parse.urlunsplit(
                (parts.scheme, parts.netloc, f"{root}/{sub}/{INDEX_FILE}", "", "")), version))
    return found


__all__ = ["DIGEST", "INDEX_FILE", "NAME", "SCHEMA_V2", "V1_PATH", "V2_PATH", "IndexEntry",
           "file_path_problem", "index_urls", "parse_index"]
