"""Approvals through MCP elicitation.

When a call needs approval (the entry's ``approval`` / ``tool_approvals``), the gateway asks
the person behind the client with a short form (``elicitation/create``, form mode): one
yes/no field, and a message naming the tool, its server and the argument *names* (never their
values, never a credential). Only ``accept`` with ``approve`` true allows the call; decline,
cancel, an error or no answer within :data:`WAIT_S` refuse it. A client that did not advertise
elicitation is never asked: the call is refused with :func:`how_to_allow`'s text. A client on
the 2026-07-28 protocol, which forbids server-initiated requests, is asked the same form
through ``InputRequiredResult`` rounds instead (:mod:`.rounds`).

An interactive OAuth login of a hosted server (PKCE, :mod:`lemon_core.mcp.runtime.authorize`)
is carried to the person the same way (:func:`ask_login`): URL-mode elicitation when the
client offers it, else a form whose message holds the authorization URL.
"""

from __future__ import annotations

from typing import Any

from lemon_core.text import escape

#: How long the gateway waits for the person's answer before refusing.
WAIT_S = 120.0
SCHEMA = {"type": "object", "required": ["approve"], "properties": {"approve": {
    "type": "boolean", "title": "Approve this call", "default": False,
    "description": "Yes to let lemon call the tool once."}}}


def can_elicit(session: Any) -> bool:
    """Whether the client advertised form elicitation and this connection can send it a
    request (a handshake-era connection; never one on the 2026-07-28 protocol)."""
    caps = getattr(session, "client_capabilities", None)
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    if elicitation is None or not getattr(session, "can_send_request", False):
        return False
    # an empty {} (the 2025-06 form) means form mode
    return elicitation.form is not None or elicitation.url is None


def message(request: Any) -> str:
    """What the person reads: the tool (raw name or MCP method), server and argument names."""
    names = ", ".join(escape(n)[:40] for n in request.argument_names[:20]) or "none"
    return (f"Allow lemon to call {escape(request.target)} on the MCP server "
            f"\"{escape(request.server)}\"? Arguments: {names} (values not shown).")


async def ask(session: Any, request: Any, related_request_id: Any = None,
              wait_s: float = WAIT_S) -> bool:
    """Ask once; True only for an explicit yes within ``wait_s``."""
    import anyio

    result = None
    with anyio.move_on_after(wait_s):
        try:
            result = await session.elicit_form(message(request), SCHEMA, related_request_id)
        except Exception:  # noqa: BLE001 - an error answer, a closed connection: refused
            return False
    if result is None or result.action != "accept":
        return False
    return (result.content or {}).get("approve") is True


LOGIN_SCHEMA = {"type": "object", "required": ["approve"], "properties": {"approve": {
    "type": "boolean", "title": "I opened the link and will sign in", "default": False,
    "description": "Yes once you have opened the URL above in your browser."}}}


def login_message(request: Any) -> str:
    """An OAuth login (:class:`~lemon_core.mcp.runtime.authorize.OAuthApproval`): the server
    and the authorization URL to open (a public client id, a PKCE challenge and a state; no
    secret)."""
    return (f"The MCP server \"{escape(request.server)}\" needs you to sign in. Open this URL "
            f"in your browser and complete the login; lemon waits for the redirect on this "
            f"machine: {escape(request.url)}")


def can_open_url(session: Any) -> bool:
    """Whether the client advertised URL-mode elicitation (MCP 2025-11-25)."""
    caps = getattr(session, "client_capabilities", None)
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    return elicitation is not None and getattr(elicitation, "url", None) is not None and \
        bool(getattr(session, "can_send_request", False))


async def ask_login(session: Any, request: Any, wait_s: float = WAIT_S) -> bool:
    """Carry a PKCE login's URL to the person: URL-mode elicitation when the client offers
    it, else a form whose message holds the URL. True only for an explicit accept."""
    import secrets

    import anyio

    result = None
    with anyio.move_on_after(wait_s):
        try:
            if can_open_url(session):
                result = await session.elicit_url(login_message(request), request.url,
                                                  secrets.token_hex(8))
                return result.action == "accept"
            if not can_elicit(session):
                return False
            result = await session.elicit_form(login_message(request), LOGIN_SCHEMA)
        except Exception:  # noqa: BLE001 - an error answer, a closed connection: refused
            return False
    if result is None or result.action != "accept":
        return False
    return (result.content or {}).get("approve") is True


def how_to_allow(tool: Any, key: str, source: Any) -> str:
    """The refusal for a client without elicitation: where to let this tool run unasked."""
    where = (f"in {escape(source.file)}" if source is not None and source.file else
             f"in its configuration ({escape(source.provider)}:{escape(source.scope)})"
             if source is not None else "in the project's .lemon/mcp.json")
    return (f"{escape(key)} on server \"{escape(tool.server)}\" needs approval, and this "
            "connection cannot ask for it (the client did not advertise MCP elicitation); "
            "nothing was called. To "
            f"allow it without asking, set \"tool_approvals\": "
            f"{{\"{escape(key)}\": \"never\"}} (or \"approval\": \"never\") on the "
            f"\"{escape(tool.server)}\" entry {where}.")


__all__ = ["LOGIN_SCHEMA", "SCHEMA", "WAIT_S", "ask", "ask_login", "can_elicit", "can_open_url",
           "how_to_allow", "login_message", "message"]
