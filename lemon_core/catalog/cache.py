"""A catalog snapshot persisted between processes, in the user's cache directory.

So a second ``lemon skill list`` on an unchanged tree parses no frontmatter: it loads the
snapshot, stats the recorded paths, and uses it when nothing changed. The file is untrusted
input: any mismatch in version, roots or shape discards it and the catalog is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lemon_core import __version__
from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.serialize import (
    CacheFormatError,
    manifest_from_data,
    manifest_to_data,
)
from lemon_core.catalog.snapshot import CatalogSnapshot, ParsedSkill, paused_gc
from lemon_core.catalog.walk import FoundSkill
from lemon_core.fsio import atomic_write_bytes
from lemon_core.models import Diagnostic

#: Bump when the cached shape or the parser's output changes.
CACHE_FORMAT = 4
MAX_CACHE_BYTES = 512 * 1024 * 1024


def _roots_data(roots: tuple[SkillRoot, ...]) -> list[list[str]]:
    return [[str(r.path), r.scope, r.id] for r in roots]


def cache_file(cache_dir: Path, roots: tuple[SkillRoot, ...]) -> Path:
    digest = hashlib.sha256(json.dumps(_roots_data(roots)).encode()).hexdigest()[:20]
    return cache_dir / "skills" / f"catalog-{digest}.json"


def _diag_data(diagnostics: tuple[Diagnostic, ...]) -> list[list[str]]:
    return [[d.path, d.severity, d.code, d.message] for d in diagnostics]


def _diags(data: Any) -> tuple[Diagnostic, ...]:
    if not isinstance(data, list):
        raise CacheFormatError("diagnostics")
    result = []
    for item in data:
        if not (isinstance(item, list) and len(item) == 4 and all(isinstance(x, str) for x in item)
                and item[1] in ("error", "warning")):
            raise CacheFormatError("diagnostic")
        result.append(Diagnostic(*item))
    return tuple(result)


def _signature(data: Any) -> tuple[int, int, int]:
    if not (isinstance(data, list) and len(data) == 3 and all(type(x) is int for x in data)):
        raise CacheFormatError("signature")
    return (data[0], data[1], data[2])


def _row(parsed: ParsedSkill, root_index: int) -> list[Any]:
    """A SKILL.md as a flat row (cheaper to read back than an object per skill)."""
    found = parsed.found
    manifest = None if parsed.manifest is None else manifest_to_data(parsed.manifest)
    return [found.key, root_index, found.dir, found.skill_md, *found.signature, manifest,
            _diag_data(parsed.diagnostics)]


class CacheStore:
    """Loads and saves the snapshot of one set of roots under ``cache_dir``."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir

    def load(self, roots: tuple[SkillRoot, ...], aux_files: tuple[Path, ...]
             ) -> CatalogSnapshot | None:
        path = cache_file(self.cache_dir, roots)
        try:
            if path.stat().st_size > MAX_CACHE_BYTES:
                return None
            with paused_gc():
                return self._decode(json.loads(path.read_bytes()), roots, aux_files)
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return None  # missing, corrupt or foreign: rebuild

    def _decode(self, doc: Any, roots: tuple[SkillRoot, ...], aux_files: tuple[Path, ...]
                ) -> CatalogSnapshot | None:
        if not isinstance(doc, dict) or doc.get("format") != CACHE_FORMAT:
            return None
        if doc.get("lemon") != __version__ or doc.get("roots") != _roots_data(roots):
            return None
        aux = doc["aux_files"]
        if [a[0] for a in aux] != [str(p) for p in aux_files]:
            return None
        parsed = []
        for row in doc["skills"]:  # one flat row per SKILL.md: see _row
            key, root_index, folder, skill_md, mtime, size, inode, manifest, diagnostics = row
            if not (type(key) is str and type(folder) is str and type(skill_md) is str
                    and type(root_index) is int and root_index >= 0 and type(mtime) is int
                    and type(size) is int and type(inode) is int):
                raise CacheFormatError("skill row")
            found = FoundSkill(key, roots[root_index], folder, skill_md, (mtime, size, inode))
            parsed.append(ParsedSkill(
                found, None if manifest is None else manifest_from_data(manifest),
                _diags(diagnostics) if diagnostics else (),
            ))
        watched = tuple((p, m) for p, m in doc["watched_dirs"]
                        if isinstance(p, str) and (m is None or type(m) is int))
        if len(watched) != len(doc["watched_dirs"]):
            raise CacheFormatError("watched_dirs")
        taken = doc["taken_at_ns"]
        if type(taken) is not int:
            raise CacheFormatError("taken_at_ns")
        return CatalogSnapshot(
            roots, tuple(parsed), _diags(doc["walk_diagnostics"]), watched,
            tuple((p, None if s is None else _signature(s)) for p, s in aux), taken,
        )

    def save(self, snapshot: CatalogSnapshot) -> None:
        with paused_gc():
            self._save(snapshot)

    def _save(self, snapshot: CatalogSnapshot) -> None:
        index = {root: i for i, root in enumerate(snapshot.roots)}
        document = {
            "format": CACHE_FORMAT,
            "lemon": __version__,
            "roots": _roots_data(snapshot.roots),
            "taken_at_ns": snapshot.taken_at_ns,
            "watched_dirs": [list(w) for w in snapshot.watched_dirs],
            "aux_files": [[p, None if s is None else list(s)] for p, s in snapshot.aux_files],
            "walk_diagnostics": _diag_data(snapshot.walk_diagnostics),
            "skills": [_row(p, index[p.found.root]) for p in snapshot.parsed],
        }
        try:
            # Paths with undecodable bytes hold lone surrogates; json.loads reads them back
            # (it decodes bytes with surrogatepass), so such a tree is cached like any other.
            text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            data = text.encode("utf-8", "surrogatepass")
            atomic_write_bytes(cache_file(self.cache_dir, snapshot.roots), data)
        except (OSError, TypeError, ValueError):
            pass  # a cache that cannot be written only costs speed next time


__all__ = ["CACHE_FORMAT", "CacheStore", "cache_file"]
