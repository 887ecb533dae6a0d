"""Asking the sources themselves: remote search across every source, and a source's catalog.

:func:`search_remote` asks every registered source's ``search`` at once (one thread each, so a
slow registry does not hold up the others) and keeps each source's failure apart: one source
that fails never hides the others' hits. :func:`browse` calls the optional ``catalog`` member
of one source (the Hermes catalog: ``lemon skill hermes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import CatalogSource

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import SearchHit, SkillSource


@attrs.frozen
class SourceFailure:
    """A source that could not answer: its name and why (plain text; escape it to show it)."""

    source: str
    message: str


@attrs.frozen
class RemoteSearch:
    """Hits in source order (router order), each source's own order inside; failures apart."""

    hits: tuple[SearchHit, ...]
    errors: tuple[SourceFailure, ...] = ()


def _sources(ctx: LemonContext, plugins: Plugins | None) -> list[SkillSource]:
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx, needs=("lemon.sources",))
    return plugins.sources()


def _ask(source: SkillSource, query: str, ctx: LemonContext,
         limit: int) -> tuple[list[SearchHit], str | None]:
    try:
        hits = list(source.search(query, ctx, limit) or ())[:limit]
    except LemonError as exc:
        return [], str(exc)
    except Exception as exc:  # noqa: BLE001 - a plugin's bug is that source's failure only
        return [], f"the source failed ({type(exc).__name__}: {exc})"
    return [h for h in hits if getattr(h, "identifier", None)], None


def search_remote(query: str, ctx: LemonContext | None = None, limit: int = 10, *,
                  plugins: Plugins | None = None) -> RemoteSearch:
    """Every source's hits for ``query`` (at most ``limit`` from each).

    :raises UsageError: for an empty query or a limit below 1.
    """
    if ctx is None:
        from lemon_core.context import LemonContext

        ctx = LemonContext.from_environment()
    if not query.strip():
        raise UsageError("give something to search for")
    if limit < 1:
        raise UsageError("the number of results must be at least 1")
    sources = [s for s in _sources(ctx, plugins) if callable(getattr(s, "search", None))]
    if not sources:
        return RemoteSearch(())
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(len(sources), 8)) as pool:
        answers = list(pool.map(lambda s: _ask(s, query.strip(), ctx, limit), sources))
    hits: list[SearchHit] = []
    errors: list[SourceFailure] = []
    for source, (found, error) in zip(sources, answers, strict=True):
        hits.extend(found)
        if error is not None:
            errors.append(SourceFailure(source.name, error))
    return RemoteSearch(tuple(hits), tuple(errors))


def browse(source_name: str, ctx: LemonContext | None = None, *,
           plugins: Plugins | None = None, **filters: Any) -> Sequence[dict[str, Any]]:
    """The catalog of the source named ``source_name`` (its optional ``catalog(ctx, **filters)``
    member), e.g. ``browse("hermes", ctx, query="paper", category="research", details=True)``.

    :raises LemonError: when no such source is installed or it has no catalog.
    """
    if ctx is None:
        from lemon_core.context import LemonContext

        ctx = LemonContext.from_environment()
    for source in _sources(ctx, plugins):
        if source.name == source_name:
            if not isinstance(source, CatalogSource) or not callable(source.catalog):
                break
            return list(source.catalog(ctx, **filters))
    raise LemonError(f"no installed source named {source_name!r} has a catalog to browse "
                     "(see 'lemon plugins list')")


__all__ = ["RemoteSearch", "SourceFailure", "browse", "search_remote"]
