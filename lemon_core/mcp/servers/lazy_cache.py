"""``lazy-skills-mcp``'s last scan, kept in lemon's cache folder so a restart is quick.

A restart at the same sources and skip folders stats every path the last scan was built from
(:meth:`~.lazy_catalog.LazyScan.unchanged`, about 0.1 s for 10,000 skills) instead of walking
and parsing again (about 2 s). The cache makes the server faster, never different:

- the file is sealed like lemon's catalog cache (:mod:`lemon_core.catalog.cache_folder`: a MAC
  under the user's private key, in a private folder, read with the bounded safe reader); any
  other file is ignored and a fresh scan replaces it;
- it is used as it is only when every recorded path is unchanged and nothing was written
  within the racy window of the scan; otherwise it is the ``previous`` of a new scan, which
  re-reads only the ``SKILL.md`` files whose signature changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from lemon_core.mcp.servers.lazy_catalog import (
    RACY_WINDOW_NS,
    LazyScan,
    Parsed,
    ServedSkill,
    scan_sources,
)

FORMAT = 2  # 2: links to folders above a source are loops (a cached walk of / is stale)
MAGIC = b"lemon-lazy-skills-scan"
MAX_BYTES = 256 * 1024 * 1024


def cache_dir() -> Path | None:
    """lemon's cache folder (``LEMON_CACHE_DIR``, else the user cache folder), or None when
    lemon must not use one."""
    from lemon_core.catalog.cache import CacheStore
    from lemon_core.context import LemonContext

    store = CacheStore.for_context(LemonContext.from_environment())
    return None if store is None else store.cache_dir


def cache_path(folder: Path, sources: Sequence[str], skip_dirs: Sequence[str]) -> Path:
    key = json.dumps([list(sources), list(skip_dirs)]).encode("utf-8", "surrogatepass")
    return folder / "skills" / f"lazy-{hashlib.sha256(key).hexdigest()[:20]}.json"


def _sig(value: Any) -> tuple[int, int, int]:
    if type(value) is not list or len(value) != 3:
        raise ValueError("signature")
    first, second, third = value
    if type(first) is not int or type(second) is not int or type(third) is not int:
        raise ValueError("signature")
    return (first, second, third)


def _opt_sig(value: Any) -> tuple[int, int, int] | None:
    return None if value is None else _sig(value)


def _strs(value: Any) -> tuple[str, ...]:
    if not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
        raise ValueError("strings")
    return tuple(value)


def _opt_str(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ValueError("string")
    return value


def encode(scan: LazyScan, sources: Sequence[str], skip_dirs: Sequence[str]) -> bytes:
    from lemon_core import __version__

    document = {
        "format": FORMAT, "lemon": __version__, "sources": list(sources),
        "skip": list(skip_dirs), "taken_at_ns": scan.taken_at_ns,
        "valid": scan.valid_count, "skipped": scan.skipped_count,
        "warnings": list(scan.warnings), "fatal": list(scan.fatal),
        "folders": list(scan.folders),
        "signatures": [[p, None if s is None else list(s)] for p, s in scan.signatures],
        "parsed": [[p, list(v.signature), v.name, v.description, v.reason]
                   for p, v in scan.parsed.items()],
        "skills": [[s.name, s.description, s.directory, s.skill_md, list(s.signature)]
                   for s in scan.skills],
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass")


def decode(payload: bytes, sources: Sequence[str], skip_dirs: Sequence[str]
           ) -> LazyScan | None:
    """The scan in ``payload`` when it is of this lemon and these folders, else None."""
    from lemon_core import __version__

    try:
        doc = json.loads(payload)
        if not (isinstance(doc, dict) and doc.get("format") == FORMAT
                and doc.get("lemon") == __version__ and doc.get("sources") == list(sources)
                and doc.get("skip") == list(skip_dirs)):
            return None
        # one string per text, as a scan has them (paths, names and descriptions recur: shared,
        # the scan pickles to the server at about half the size)
        shared: dict[str, str] = {}
        one = shared.setdefault
        parsed = {}
        for path, sig, name, description, reason in doc["parsed"]:
            if not (type(path) is str and type(description) is str):
                raise TypeError("parsed")
            name = None if name is None else one(_opt_str(name), name)
            parsed[one(path, path)] = Parsed(_sig(sig), name, one(description, description),
                                             _opt_str(reason))
        skills = []
        for name, description, directory, skill_md, sig in doc["skills"]:
            if not (type(name) is str and type(description) is str and type(directory) is str
                    and type(skill_md) is str):
                raise TypeError("skill")
            skills.append(ServedSkill(one(name, name), one(description, description),
                                      one(directory, directory),
                                      one(skill_md, skill_md), _sig(sig)))
        signatures = []
        for path, sig in doc["signatures"]:
            if type(path) is not str:
                raise TypeError("path")
            signatures.append((one(path, path), _opt_sig(sig)))
        folders = tuple(one(path, path) for path in _strs(doc["folders"]))
        taken, valid, skipped = doc["taken_at_ns"], doc["valid"], doc["skipped"]
        if not all(type(x) is int for x in (taken, valid, skipped)):
            raise ValueError("counts")
        return LazyScan(tuple(skills), _strs(doc["warnings"]), _strs(doc["fatal"]),
                        folders, tuple(signatures), parsed, valid, skipped, taken)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None


def load(path: Path, sources: Sequence[str], skip_dirs: Sequence[str]) -> LazyScan | None:
    """The sealed scan at ``path``, or None. Never raises, never blocks."""
    from lemon_core.catalog.cache_folder import private_dir, read_key, unseal
    from lemon_core.fsio import FileProblem, read_bytes

    folder = path.parent.parent
    if not (private_dir(folder) and private_dir(path.parent)):
        return None
    key = read_key(folder)
    if key is None:
        return None
    try:
        data = read_bytes(path, MAX_BYTES)
    except FileProblem:
        return None
    payload = None if data is None else unseal(key, MAGIC, data)
    return None if payload is None else decode(payload, sources, skip_dirs)


def save(path: Path, scan: LazyScan, sources: Sequence[str], skip_dirs: Sequence[str]) -> None:
    """Seal and write ``scan``; a failure only costs a full scan at the next start."""
    from lemon_core.catalog.cache_folder import ensure_key, private_dir, seal
    from lemon_core.fsio import atomic_write_bytes

    folder = path.parent.parent
    if not (private_dir(folder, create=True) and private_dir(path.parent, create=True)):
        return
    key = ensure_key(folder)
    if key is None:
        return
    try:
        atomic_write_bytes(path, seal(key, MAGIC, encode(scan, sources, skip_dirs)))
    except (OSError, TypeError, ValueError, RecursionError):
        pass


def current(scan: LazyScan) -> bool:
    """Whether ``scan`` may be served as it is: no recorded path changed, and none was
    written so close to the scan that one timestamp tick could hide a second write."""
    limit = scan.taken_at_ns - RACY_WINDOW_NS
    if any(sig is not None and sig[0] >= limit for _, sig in scan.signatures):
        return False
    return scan.unchanged()


def prepare(sources: Sequence[str], skip_dirs: Sequence[str], *,
            folder: Path | None = None) -> tuple[LazyScan, Callable[[], None] | None]:
    """The scan of ``sources``: the cached one when it is still current, else a new one
    (re-reading only what changed since the cached one); and, for a new one, the function
    that saves it for the next start (call it once the scan has been handed on)."""
    folder = cache_dir() if folder is None else folder
    path = None if folder is None else cache_path(folder, sources, skip_dirs)
    cached = None if path is None else load(path, sources, skip_dirs)
    if cached is not None and current(cached):
        return cached, None
    scan = scan_sources(sources, skip_dirs, previous=cached)
    if path is None:
        return scan, None
    return scan, lambda: save(path, scan, sources, skip_dirs)


__all__ = ["cache_dir", "cache_path", "current", "decode", "encode", "load",
           "prepare", "save"]
