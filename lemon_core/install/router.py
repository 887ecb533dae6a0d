"""Which source an install identifier belongs to.

The registered sources (``lemon.sources``) are tried in router order (their ``order``: builtin,
``git+``, ``git@``, ``gh:``, ``hermes:``, http(s), paths, registry refs); the first whose
``parse`` accepts the trimmed identifier owns it. A source may have an optional
``bind(ref, ctx)`` that makes the reference canonical for this context (a relative path made
absolute); the router calls it. An identifier no source accepts is a
:class:`~lemon_core.errors.UsageError` listing every accepted form (each source's optional
``forms``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lemon_core.errors import UsageError

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import SkillSource, SourceRef


def sources_of(ctx: LemonContext | None, plugins: Plugins | None = None) -> list[SkillSource]:
    """The registered sources in router order (``plugins`` default: the installed ones)."""
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx, needs=("lemon.sources",))
    return plugins.sources()


def accepted_forms(sources: list[SkillSource]) -> list[str]:
    forms: list[str] = []
    for source in sources:
        for form in getattr(source, "forms", ()) or ():
            if form not in forms:
                forms.append(str(form))
    return forms


def resolve(identifier: str, ctx: LemonContext, *,
            plugins: Plugins | None = None) -> tuple[SkillSource, SourceRef]:
    """The source that accepts ``identifier`` and the reference it made of it.

    :raises UsageError: when no source accepts it (the message lists the accepted forms), or
        when the accepting source finds it malformed (its own message).
    """
    text = identifier.strip()
    sources = sources_of(ctx, plugins)
    if text:
        for source in sources:
            ref = source.parse(text)
            if ref is None:
                continue
            bind = getattr(source, "bind", None)
            if callable(bind):
                ref = bind(ref, ctx)
            return source, ref
    forms = accepted_forms(sources)
    listed = "; ".join(forms) if forms else "no source is installed (see 'lemon plugins list')"
    what = f"the skill identifier {text!r}" if text else "an empty skill identifier"
    raise UsageError(f"cannot resolve {what}; accepted forms: {listed}")


__all__ = ["accepted_forms", "resolve", "sources_of"]
