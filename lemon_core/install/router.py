"""Which source an install identifier belongs to.

The registered sources (``lemon.sources``) are tried in router order (their ``order``: builtin,
``git+``, ``git@``, ``gh:``, ``hermes:``, http(s), paths, registry refs); the first whose
``parse`` accepts the trimmed identifier owns it. A source may have an optional
``bind(ref, ctx)`` that makes the reference canonical for this context (a relative path made
absolute); the router calls it. An identifier no source accepts is a
:class:`~lemon_core.errors.UsageError` listing every accepted form (each source's optional
``forms``).

What a person types first goes through :func:`shorthand` (the install and preview calls do
that; a lockfile's recorded identifier does not, so it routes as it did when recorded):
``owner/repo`` (exactly two parts shaped like a GitHub owner and repository) means
``gh:owner/repo``, as in the ``skills`` CLI, and is refused when a folder of that name exists
in the working directory (the message names both readings); a registry-shaped ``a/b/c`` that
names an existing folder there is refused with "use ./a/b/c". A path is never guessed: a
folder is named with ``./``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lemon_core.errors import UsageError
from lemon_core.protocols import BindingSource, SourceForms

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins
    from lemon_core.protocols import SkillSource, SourceRef


_OWNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,38}\Z")
_REPO = re.compile(r"[A-Za-z0-9._-]{1,100}\Z")


def _bare(text: str) -> bool:
    """No scheme, no path prefix: text only the shorthands or a registry ref can mean."""
    return (":" not in text and "@" not in text and not text.startswith(("/", ".", "~"))
            and "\\" not in text)


def _is_folder(ctx: LemonContext, text: str) -> bool:
    try:
        return (ctx.cwd / text).is_dir()
    except (OSError, ValueError):
        return False


def shorthand(identifier: str, ctx: LemonContext) -> str:
    """``identifier`` with the GitHub shorthand written out: ``owner/repo`` becomes
    ``gh:owner/repo``; any other identifier is returned trimmed and unchanged.

    :raises UsageError: ``owner/repo`` or a registry-shaped ``a/b/c`` names an existing folder
        of the working directory (which one was meant is not guessed).
    """
    text = identifier.strip()
    if not _bare(text) or "/" not in text:
        return text
    parts = text.split("/")
    if len(parts) == 2:
        owner, repo = parts
        if not _OWNER.match(owner) or not _REPO.match(repo) or repo in (".", ".."):
            return text
        if _is_folder(ctx, text):
            raise UsageError(f"./{text} is a folder here; use ./{text} for the folder or "
                             f"gh:{text} for GitHub")
        return f"gh:{text}"
    if all(parts) and _is_folder(ctx, text):
        raise UsageError(f"{text} is a folder here, and a bare {text} is read as a registry "
                         f"ref (NAMESPACE/CATEGORY/NAME); use ./{text} for the folder")
    return text


def sources_of(ctx: LemonContext | None, plugins: Plugins | None = None) -> list[SkillSource]:
    """The registered sources in router order (``plugins`` default: the installed ones)."""
    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(ctx, needs=("lemon.sources",))
    return plugins.sources()


def accepted_forms(sources: list[SkillSource]) -> list[str]:
    forms: list[str] = []
    for source in sources:
        for form in (source.forms if isinstance(source, SourceForms) else ()) or ():
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
            if isinstance(source, BindingSource) and callable(source.bind):
                ref = source.bind(ref, ctx)
            return source, ref
    forms = accepted_forms(sources)
    listed = "; ".join(forms) if forms else "no source is installed (see 'lemon plugins list')"
    what = f"the skill identifier {text!r}" if text else "an empty skill identifier"
    raise UsageError(f"cannot resolve {what}; accepted forms: {listed}")


__all__ = ["accepted_forms", "resolve", "shorthand", "sources_of"]
