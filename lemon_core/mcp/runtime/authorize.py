"""PKCE logins inside the tool host, through an operator approval.

A Streamable HTTP entry with ``"flow": "authorization_code_pkce"`` and a local
``redirect_uri`` needs a person once (then its tokens are cached and refreshed). Outside the
host, ``lemon mcp login NAME`` does that on a terminal. Inside it, the host runs the localhost
redirect receiver itself (:mod:`lemon_core.mcp.client.oauth.receiver`) and hands the
authorization URL to the operator:

- with ``oauth.authorization_approval`` true (the default), the host's ``approver`` is asked
  with an :class:`OAuthApproval` (``name`` and ``target`` ``oauth/authorize``, the server's
  name, the ``url`` to open and the ``redirect_uri`` lemon listens on). A yes means the
  person opens the URL (the approver shows it; ``lemon mcp serve`` sends it in an elicitation);
  the host's ``authorizer``, when the embedder gave one, is then called with the URL too
  (e.g. to open a browser). No approver, a no, or an approver that fails: the connection fails
  with ``auth_required`` ("run 'lemon mcp login NAME'") or ``auth_declined``;
- with ``authorization_approval`` false the URL goes to the ``authorizer`` unasked; without
  one the connection fails with ``auth_required``.

The host then waits for the redirect (``oauth.authorization_timeout_ms``, default 300 s, which
extends the entry's handshake budget) and resumes: the server's tools appear as for any other.
"""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Callable
from typing import Any

import attrs

from lemon_core.approval import CallApproval
from lemon_core.mcp.runtime.approvals import Approver

METHOD = "oauth/authorize"
#: ``authorizer(url)``: shows or opens the URL (a function or a coroutine function).
Authorizer = Callable[[str], Any]


@attrs.frozen
class OAuthApproval(CallApproval):
    """An approval request for an interactive OAuth login to ``server``: ``url`` is the
    authorization URL to open (it carries no secret: a public client id, the PKCE challenge
    and a state), ``redirect_uri`` where lemon waits for the answer."""

    url: str = ""
    redirect_uri: str = ""


def wants_approval(server: Any) -> bool:
    """The entry's ``oauth.authorization_approval`` (default true)."""
    return (server.oauth or {}).get("authorization_approval", True) is not False


def host_authorizer(server: Any, shown_name: str, approver_of: Callable[[], Approver | None],
                    authorizer: Authorizer | None) -> Authorizer:
    """The authorizer the host installs for ``server``'s connections."""

    async def authorize(url: str) -> None:
        import anyio

        from lemon_core.mcp.client.oauth.errors import OAuthError

        if wants_approval(server):
            approver = approver_of()
            if approver is None:
                raise OAuthError(server.name, "auth_required")
            request = OAuthApproval(METHOD, shown_name, METHOD, (), url,
                                    str((server.oauth or {}).get("redirect_uri", "")))
            try:
                allowed = bool(await anyio.to_thread.run_sync(approver, request))
            except Exception:  # noqa: BLE001 - an approver that fails has not approved
                allowed = False
            if not allowed:
                raise OAuthError(server.name, "auth_declined")
        elif authorizer is None:
            raise OAuthError(server.name, "auth_required")
        if authorizer is not None:
            shown = authorizer(url)
            if inspect.isawaitable(shown):
                await shown

    return authorize


def login_budget(server: Any) -> float:
    """The seconds a PKCE entry's connection may spend on a person's login, added to its
    handshake budget (``oauth.authorization_timeout_ms``; the spec: PKCE authorization can
    extend ``ready_timeout_ms``); 0 for any other entry."""
    oauth = server.oauth or {}
    if oauth.get("flow") != "authorization_code_pkce":
        return 0.0
    from lemon_core.mcp.client.oauth.settings import DEFAULT_AUTHORIZATION_TIMEOUT_MS

    return int(oauth.get("authorization_timeout_ms") or DEFAULT_AUTHORIZATION_TIMEOUT_MS) / 1000


def start_with(authorize: Authorizer | None, start_soon: Callable[..., Any],
               func: Callable[..., Any], *args: Any) -> None:
    """``start_soon(func, *args)`` in a task whose connections log in through ``authorize``
    (:func:`lemon_core.mcp.client.oauth.interactive.authorize_with`'s context variable, set
    only in the new task's copy of the context)."""
    from lemon_core.mcp.client.oauth.interactive import set_authorizer

    def spawn() -> None:
        if authorize is not None:
            set_authorizer(authorize)
        start_soon(func, *args)

    contextvars.copy_context().run(spawn)


__all__ = ["METHOD", "Authorizer", "OAuthApproval", "host_authorizer", "login_budget",
           "start_with", "wants_approval"]
