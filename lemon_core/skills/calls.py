"""What every library call of :mod:`lemon_core.skills` does first and last, without the catalog.

:func:`call_context` makes the context of one call (``ctx``, or the process's environment, with
``cwd`` applied and checked). :func:`changed` is what a call that changed a skills folder on
disk (install, update, remove, sync) runs once the change is there: the caller's
:class:`~lemon_core.skills.workspace.Workspace`, if it passed one, re-reads its catalogs on
their next use. A call without a workspace has no catalog to tell (a ``lemon skill install``
command), so neither function imports the catalog: the install path stays free of it, and no
folder is rescanned only to be thrown away when the process ends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from lemon_core.context import LemonContext
from lemon_core.errors import Option, UsageError


class Workspace(Protocol):
    """What a write call needs of a :class:`~lemon_core.skills.workspace.Workspace`."""

    @property
    def ctx(self) -> LemonContext: ...

    def invalidate(self) -> None: ...


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


def changed(workspace: Workspace | None) -> Callable[[], None]:
    """The refresh a write runs once a skills folder changed: ``workspace``'s catalogs re-read
    on their next use (:meth:`~lemon_core.skills.workspace.Workspace.invalidate`); without a
    workspace, nothing (no catalog outlives the call)."""
    return workspace.invalidate if workspace is not None else _nothing


def _nothing() -> None:
    return None


def call_workspace(ctx: LemonContext | None, cwd: str | Path | None,
                   workspace: Workspace | None) -> LemonContext:
    """The context of a write call: ``workspace``'s (then ``ctx`` and ``cwd`` must not be
    given), else :func:`call_context`."""
    if workspace is None:
        return call_context(ctx, cwd)
    if cwd is not None or (ctx is not None and ctx is not workspace.ctx):
        raise UsageError("pass a workspace or a context and directory, not both (a workspace "
                         "has its context: Workspace.open(ctx, cwd=...))")
    return workspace.ctx


__all__ = ["call_context", "call_workspace", "changed"]
