"""Approvals through MCP elicitation.

When a call needs approval (the entry's ``approval`` / ``tool_approvals``), the gateway asks
the person behind the client with a short form (``elicitation/create``, form mode): one
yes/no field, and a message naming the tool, its server and the argument *names* (never their
values, never a credential). Only ``accept`` with ``approve`` true allows the call; decline,
cancel, an error or no answer within :data:`WAIT_S` refuse it. A client that did not advertise
elicitation is never asked: the call is refused with :func:`how_to_allow`'s text. A client on
the 2026-07-28 protocol, which forbids server-initiated requests, is asked the same form
through ``InputRequiredResult`` rounds instead (:mod:`.rounds`).
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


__all__ = ["SCHEMA", "WAIT_S", "ask", "can_elicit", "how_to_allow", "message"]
