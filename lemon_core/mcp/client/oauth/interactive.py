"""Who receives the authorization URL of an interactive (PKCE) login.

A caller that can show a URL to a person (``lemon mcp login``, an embedder's UI) runs its
connection inside :func:`authorize_with`; the callback gets the URL (it may be a coroutine
function) and lemon then waits for the localhost redirect. The tool host installs its own for
each connection (:mod:`lemon_core.mcp.runtime.authorize`: an operator approval). Without one —
``lemon mcp tools``, ``status``, ``call``, ``test`` — a login that needs a person fails at once with
the fixed kind ``auth_required`` and the hint ``lemon mcp login NAME``: nothing ever waits for a
browser nobody opened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

Authorizer = Callable[[str], Any]

_AUTHORIZER: ContextVar[Authorizer | None] = ContextVar("lemon_oauth_authorizer", default=None)


@contextmanager
def authorize_with(callback: Authorizer) -> Iterator[None]:
    """Connections opened inside this block may run an interactive login through
    ``callback(url)``."""
    token = _AUTHORIZER.set(callback)
    try:
        yield
    finally:
        _AUTHORIZER.reset(token)


def current_authorizer() -> Authorizer | None:
    return _AUTHORIZER.get()


def set_authorizer(callback: Authorizer) -> None:
    """Set the authorizer for the rest of the current context (the tool host calls this in
    a fresh copy of the context, for one server's connection task)."""
    _AUTHORIZER.set(callback)


__all__ = ["Authorizer", "authorize_with", "current_authorizer", "set_authorizer"]
