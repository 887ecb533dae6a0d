"""The relevance index of a catalog snapshot: built once per snapshot, cached with it.

In a process, the index is kept in the catalog's ``derived`` views (dropped when the snapshot
changes). Between processes, it is stored beside the persistent catalog cache, sealed the
same way and bound to the very scan it was built from, so a warm ``lemon skill search`` reads
no SKILL.md body. Building reads each skill's bounded body excerpt through the safe reader; no
lock is held while building or scoring.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lemon_core.catalog.snapshot import Catalog, CatalogSnapshot
from lemon_core.models import SkillEntry
from lemon_core.search.excerpt import body_excerpt
from lemon_core.search.index import SearchDoc, SearchIndex

DERIVED_NAME = "search"


def search_doc(entry: SkillEntry, body: str) -> SearchDoc:
    manifest = entry.manifest
    return SearchDoc(entry.key, entry.name, manifest.description, manifest.keywords,
                     manifest.tags, body)


def build_index(entries: Iterable[SkillEntry]) -> SearchIndex:
    """The index of ``entries``, reading each one's body excerpt."""
    return SearchIndex.build(search_doc(entry, body_excerpt(entry.path)) for entry in entries)


def index_for(catalog: Catalog, snapshot: CatalogSnapshot) -> SearchIndex:
    """The index of ``snapshot`` (a snapshot of ``catalog``): kept, loaded or built."""
    derived = catalog.derived
    kept = derived.get(DERIVED_NAME)
    if kept is not None and kept[0] is snapshot:
        return kept[1]
    keys = tuple(entry.key for entry in snapshot.entries)
    store: Any = catalog.store
    index = None
    if store is not None:
        index = SearchIndex.from_data(store.load_derived(snapshot, DERIVED_NAME))
        if index is not None and index.keys != keys:
            index = None
    if index is None:
        index = build_index(snapshot.entries)
        if store is not None:
            store.save_derived(snapshot, DERIVED_NAME, index.to_data())
    derived[DERIVED_NAME] = (snapshot, index)
    return index


__all__ = ["build_index", "index_for", "search_doc"]
