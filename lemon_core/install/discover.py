"""``discover``: one ranked search across every source that can search.

The registry, the Hermes catalog and the well-known sites (``LEMON_WELL_KNOWN``) are asked at
once (:func:`lemon_core.install.remote.search_remote`); ``source`` narrows it to one source by
name, or to one site or catalog an identifier names (``well-known:https://…``: that source's
optional ``search_in(ref, query, ctx, limit)`` member). Each source scores on its own scale, so
the hits are ranked again on one: the share of the query's words found in the hit's name
(twice) and description, the source's own score breaking ties, then the identifier. Every hit
carries the identifier that installs it; a source that fails is reported apart.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.install.remote import RemoteSearch, SourceFailure, search_remote

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import SearchHit

_WORD = re.compile(r"[a-z0-9]+")


@attrs.frozen
class Discovery:
    hits: tuple[SearchHit, ...]
    errors: tuple[SourceFailure, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"hits": [attrs.asdict(h) for h in self.hits],
                "errors": [attrs.asdict(e) for e in self.errors], "count": len(self.hits)}


def rank_score(query: str, name: str, description: str) -> float:
    """0..1: the query's words in ``name`` (weight 2) and ``description`` (weight 1)."""
    words = set(_WORD.findall(query.lower()))
    if not words:
        return 0.0
    in_name = set(_WORD.findall(name.lower()))
    in_text = set(_WORD.findall(description.lower()))
    return sum(2.0 * (w in in_name) + (w in in_text) for w in words) / (3.0 * len(words))


def discover(query: str, ctx: LemonContext, *, source: str | None = None, limit: int = 20,
             plugins: Plugins | None = None) -> Discovery:
    """The hits for ``query``, best first, at most ``limit``.

    :raises UsageError: an unknown source name, or an identifier whose source cannot search
        one site.
    """
    from lemon_core.install.router import sources_of

    sources = sources_of(ctx, plugins)
    if source is not None and ":" in source:
        from lemon_core.install.router import resolve

        owner, ref = resolve(source, ctx, plugins=plugins)
        search_in = getattr(owner, "search_in", None)
        if not callable(search_in):
            raise UsageError(f"the source {owner.name!r} cannot search one site; give "
                             f"--source {owner.name}")
        try:
            found = RemoteSearch(tuple(search_in(ref, query, ctx, limit)))
        except LemonError as exc:
            found = RemoteSearch((), (SourceFailure(owner.name, str(exc)),))
    else:
        if source is not None:
            names = [s.name for s in sources]
            if source not in names:
                raise UsageError(f"no source named {source!r}; the sources are "
                                 f"{', '.join(names)}")
        if not query.strip():
            raise UsageError("give something to search for (an empty QUERY lists one "
                             "well-known site: --source well-known:URL)")
        found = search_remote(query, ctx, limit, plugins=_only(ctx, plugins, source))
    scored = sorted(found.hits, key=lambda h: (-rank_score(query, h.name, h.description),
                                               -h.score, h.identifier))
    ranked = tuple(attrs.evolve(h, score=round(rank_score(query, h.name, h.description), 4))
                   if query.strip() else h for h in scored[:limit])
    return Discovery(ranked, found.errors)


def _only(ctx: LemonContext, plugins: Plugins | None, name: str | None) -> Any:
    """The plugins to ask: all, or a view holding only the source ``name``."""
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx, needs=("lemon.sources",))
    if name is None:
        return plugins
    chosen = [s for s in plugins.sources() if s.name == name]

    class _One:
        def sources(self) -> list[Any]:
            return chosen

    return _One()


__all__ = ["Discovery", "discover", "rank_score"]
