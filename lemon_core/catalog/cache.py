"""A catalog snapshot persisted between processes, in the user's cache directory.

So a second ``lemon skill list`` on an unchanged tree parses no frontmatter: it loads the
snapshot, stats the recorded paths, and uses it when nothing changed.

The cache makes lemon faster, never different: whatever the file holds, every command's output
equals that of a cold scan of the same tree. The file is trusted for nothing. It is read with
the bounded safe reader, and it is parsed only when its MAC verifies
(:mod:`~lemon_core.catalog.cache_folder`): any other file (forged, edited, truncated, a FIFO, a
link to a device) is ignored, the catalog is rebuilt cold and the file rewritten. A sealed file
is then still checked for version, roots, shape and the cheap invariants of a walk, and used only
while every path it was built from is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core import __version__
from lemon_core.catalog.cache_folder import (
    ensure_key,
    private_dir,
    read_key,
    seal,
    unseal,
)
from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.serialize import (
    CacheFormatError,
    manifest_from_data,
    manifest_to_data,
)
from lemon_core.catalog.snapshot import CatalogSnapshot, ParsedSkill, paused_gc
from lemon_core.catalog.walk import SKILL_FILE, FoundSkill
from lemon_core.fsio import FileProblem, atomic_write_bytes, read_bytes
from lemon_core.models import Diagnostic

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

#: Bump when the cached shape or the parser's output changes.
CACHE_FORMAT = 6  # 6: links to folders above a root are loops (what a root watches changed)
#: The first bytes of a catalog cache file, before its MAC.
MAGIC = b"lemon-catalog-cache"
MAX_CACHE_BYTES = 512 * 1024 * 1024


def _roots_data(roots: tuple[SkillRoot, ...]) -> list[list[str]]:
    return [[str(r.path), r.scope, r.id, r.layout] for r in roots]


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

    @classmethod
    def for_context(cls, ctx: LemonContext) -> CacheStore | None:
        """The store of ``ctx.cache_dir``, or None when lemon must not use it: a relative cache
        folder, or one below a home that has a problem (nothing below it is read or written)."""
        cache_dir = ctx.cache_dir
        if not cache_dir.is_absolute():
            return None
        if getattr(ctx, "home_problem", None) is not None:
            override = ctx.getenv("LEMON_CACHE_DIR")
            if override is not None and not Path(override).is_absolute():
                return None  # "~/…" or relative: it would land below the unusable home or cwd
            if override is None and ctx.home.is_absolute() and cache_dir.is_relative_to(ctx.home):
                return None
        return cls(cache_dir)

    def _read_sealed(self, path: Path) -> bytes | None:
        """The verified payload of the sealed file at ``path`` (in private folders, at most
        :data:`MAX_CACHE_BYTES`), or None for anything else. Never raises, never blocks."""
        if not (private_dir(self.cache_dir) and private_dir(path.parent)):
            return None
        key = read_key(self.cache_dir)
        if key is None:
            return None
        try:
            data = read_bytes(path, MAX_CACHE_BYTES)
        except FileProblem:
            return None
        return None if data is None else unseal(key, MAGIC, data)

    def load(self, roots: tuple[SkillRoot, ...], aux_files: tuple[Path, ...]
             ) -> CatalogSnapshot | None:
        """The sealed snapshot for ``roots``, or None (missing, unsealed, foreign, stale shape:
        rebuild). Never raises, never blocks, never reads more than :data:`MAX_CACHE_BYTES`."""
        payload = self._read_sealed(cache_file(self.cache_dir, roots))
        if payload is None:
            return None
        try:
            with paused_gc():
                return self._decode(json.loads(payload), roots, aux_files)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
            return None  # sealed but of another shape (a lemon of the same version cannot)

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
        sep = os.sep
        prefixes = [str(root.path) + sep for root in roots]
        suffix = sep + SKILL_FILE
        for row in doc["skills"]:  # one flat row per SKILL.md: see _row
            key, root_index, folder, skill_md, mtime, size, inode, manifest, diagnostics = row
            if not (type(key) is str and type(folder) is str and type(skill_md) is str
                    and type(root_index) is int and root_index >= 0 and type(mtime) is int
                    and type(size) is int and type(inode) is int):
                raise CacheFormatError("skill row")
            # What a walk guarantees: the key is the folder's name, the folder is below its
            # root, the SKILL.md is in the folder.
            if (folder.rpartition(sep)[2] != key or not folder.startswith(prefixes[root_index])
                    or skill_md != folder + suffix):
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
        if not {str(root.path) for root in roots} <= {p for p, _ in watched}:
            raise CacheFormatError("watched_dirs")  # a walk records every root, found or not
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
        path = cache_file(self.cache_dir, snapshot.roots)
        if not (private_dir(self.cache_dir, create=True)
                and private_dir(path.parent, create=True)):
            return  # a cache that cannot be written only costs speed next time
        key = ensure_key(self.cache_dir)
        if key is None:
            return
        try:
            # Paths with undecodable bytes hold lone surrogates; json.loads reads them back
            # (it decodes bytes with surrogatepass), so such a tree is cached like any other.
            text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            data = text.encode("utf-8", "surrogatepass")
            atomic_write_bytes(path, seal(key, MAGIC, data))
        except (OSError, TypeError, ValueError, RecursionError):
            pass

    # -- views derived from a snapshot (the search index), cached beside it ------------------

    def _derived_file(self, roots: tuple[SkillRoot, ...], name: str) -> Path:
        base = cache_file(self.cache_dir, roots)
        return base.with_name(f"{base.stem}.{name}.json")

    def load_derived(self, snapshot: CatalogSnapshot, name: str) -> Any:
        """The data :meth:`save_derived` stored under ``name`` for this very snapshot (the
        same scan: roots, time and count), or None. Sealed like the snapshot; never raises."""
        payload = self._read_sealed(self._derived_file(snapshot.roots, name))
        if payload is None:
            return None
        try:
            with paused_gc():
                doc = json.loads(payload)
        except (ValueError, RecursionError):
            return None
        if not (isinstance(doc, dict) and doc.get("format") == CACHE_FORMAT
                and doc.get("lemon") == __version__
                and doc.get("roots") == _roots_data(snapshot.roots)
                and doc.get("taken_at_ns") == snapshot.taken_at_ns
                and doc.get("count") == len(snapshot.parsed)):
            return None
        return doc.get("data")

    def save_derived(self, snapshot: CatalogSnapshot, name: str, data: Any) -> None:
        """Store ``data`` (plain JSON data) as view ``name`` of ``snapshot``; a failure only
        costs the time of computing it again."""
        document = {"format": CACHE_FORMAT, "lemon": __version__,
                    "roots": _roots_data(snapshot.roots), "taken_at_ns": snapshot.taken_at_ns,
                    "count": len(snapshot.parsed), "data": data}
        path = self._derived_file(snapshot.roots, name)
        if not (private_dir(self.cache_dir, create=True)
                and private_dir(path.parent, create=True)):
            return
        key = ensure_key(self.cache_dir)
        if key is None:
            return
        try:
            text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
            atomic_write_bytes(path, seal(key, MAGIC, text.encode("utf-8", "surrogatepass")))
        except (OSError, TypeError, ValueError, RecursionError):
            pass


__all__ = ["CACHE_FORMAT", "CacheStore", "cache_file"]
