"""What every library call of :mod:`lemon_core.skills` does first and last, without the catalog.

:func:`call_context` makes the context of one call (``ctx``, or the process's environment, with
``cwd`` applied and checked). :func:`catalogs_changed` is the catalog refresh after a call
changed a skills folder on disk (install, update, remove, sync): every in-process catalog that
shares a root with the call's context re-reads on its next use. A process that has built no
catalog (a ``lemon skill install`` command) has none to refresh, so neither function imports
the catalog: the install path stays free of it, and no folder is rescanned only to be thrown
away when the process ends.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.errors import Option, UsageError

#: The module holding the in-process catalogs (imported by whoever builds one).
CATALOGS_MODULE = "lemon_core.skills.api"


def call_context(ctx: LemonContext | None, cwd: str | Path | None) -> LemonContext:
    """``ctx`` (default: from the environment) with ``cwd`` applied.

    :raises UsageError: when the project directory does not exist or is not a folder.
    """
    if ctx is None:
        ctx = LemonContext.from_environment(cwd)
    elif cwd is not None:
        ctx = ctx.evolve(cwd=Path(cwd))
    if not ctx.cwd.is_dir():  # one stat: a deleted or mistyped project would list nothing
        what = "does not exist" if not ctx.cwd.exists() else "is not a folder"
        raise UsageError(f"the project directory {ctx.cwd} {what}",
                         advice=("pass an existing folder as ", Option("cwd", metavar="DIR")))
    return ctx


def catalogs_changed(ctx: LemonContext) -> None:
    """Tell the in-process catalogs listing ``ctx``'s roots that their folders changed."""
    catalogs = sys.modules.get(CATALOGS_MODULE)
    if catalogs is not None:  # not imported: no catalog exists in this process
        catalogs.invalidate(ctx)


__all__ = ["CATALOGS_MODULE", "call_context", "catalogs_changed"]
