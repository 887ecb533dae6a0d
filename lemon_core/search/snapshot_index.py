"""The relevance index of a catalog snapshot: built once per snapshot, cached with it.

In a process, the index is kept by its owner (a workspace's views of the snapshot, dropped
when the snapshot changes), with the analyses of the SKILL.md files it read
(:class:`Analyses`), so a rebuild after a change re-reads only what changed. Between processes, it is stored beside the persistent catalog cache, sealed the
same way and bound to the very scan it was built from, so a warm ``lemon skill search`` reads
no SKILL.md body. Building reads each skill's bounded body excerpt through the safe reader; no
lock is held while building or scoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from lemon_core.catalog.snapshot import RACY_WINDOW_NS, Catalog, CatalogSnapshot
from lemon_core.models import SkillEntry
from lemon_core.search.excerpt import body_excerpt
from lemon_core.search.index import SearchDoc, SearchIndex

DERIVED_NAME = "search"


def search_doc(entry: SkillEntry, body: str) -> SearchDoc:
    manifest = entry.manifest
    return SearchDoc(entry.key, entry.name, manifest.description, manifest.keywords,
                     manifest.tags, body)


#: (SKILL.md path, file signature) -> its analysis.
Analyses = dict[tuple[str, tuple[int, int, int]], Any]
MAX_KEPT_ANALYSES = 50_000


def build_index(entries: Iterable[SkillEntry],
                signatures: Mapping[str, tuple[int, int, int]] | None = None,
                analyses: Analyses | None = None) -> SearchIndex:
    """The index of ``entries``, reading each one's body excerpt; ``signatures`` (SKILL.md
    path -> a signature that is safe to trust) lets an unchanged file's analysis from an
    earlier build (in ``analyses``, which then holds this build's) be reused instead."""
    signatures = signatures or {}
    known: Analyses = {} if analyses is None else analyses
    docs = []
    kept: dict[tuple[str, tuple[int, int, int]], Any] = {}
    for entry in entries:
        signature = signatures.get(entry.path)
        analysis = None if signature is None else known.get((entry.path, signature))
        if analysis is None:
            analysis = search_doc(entry, body_excerpt(entry.path)).analyse()
        if signature is not None:
            kept[(entry.path, signature)] = analysis
        docs.append(attrs.evolve(search_doc(entry, ""), analysis=analysis))
    if len(kept) <= MAX_KEPT_ANALYSES:
        known.clear()  # only the current snapshot's files are worth keeping
        known.update(kept)
    return SearchIndex.build(docs)


def trusted_signatures(snapshot: CatalogSnapshot) -> dict[str, tuple[int, int, int]]:
    """SKILL.md path -> signature, for the files old enough that an unchanged signature
    means unchanged content (the catalog's own racy-window rule)."""
    limit = snapshot.taken_at_ns - RACY_WINDOW_NS
    return {p.found.skill_md: p.found.signature for p in snapshot.parsed
            if p.found.signature[0] < limit}


def index_for(catalog: Catalog, snapshot: CatalogSnapshot,
              analyses: Analyses | None = None) -> SearchIndex:
    """The index of ``snapshot`` (a snapshot of ``catalog``): loaded from beside the persistent
    cache, or built (reusing ``analyses``, see :func:`build_index`). The caller keeps it."""
    keys = tuple(entry.key for entry in snapshot.entries)
    store: Any = catalog.store
    index = None
    if store is not None:
        index = SearchIndex.from_data(store.load_derived(snapshot, DERIVED_NAME))
        if index is not None and index.keys != keys:
            index = None
    if index is None:
        index = build_index(snapshot.entries, trusted_signatures(snapshot), analyses)
        if store is not None:
            store.save_derived(snapshot, DERIVED_NAME, index.to_data())
    return index


__all__ = ["Analyses", "build_index", "index_for", "search_doc"]
