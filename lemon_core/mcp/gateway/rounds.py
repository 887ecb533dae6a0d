"""Approvals for clients on the 2026-07-28 protocol, through ``InputRequiredResult`` rounds.

That protocol forbids server-initiated requests, so the gateway cannot send
``elicitation/create`` while a call waits. Instead the first ``tools/call`` of a tool that
needs approval returns an ``InputRequiredResult`` carrying the same one-field form as
:mod:`.elicit` (key :data:`KEY`) and an opaque ``requestState``; nothing is called. The
client shows the form and retries the call with the answer and the state echoed back
(``mcp.client.Client.call_tool`` does so through the client's elicitation callback).

The state is a random nonce that only this process knows (:class:`Pending`): it is bound to
the model-facing tool name and a digest of the arguments, used at most once, and forgotten
after :data:`~lemon_core.mcp.gateway.elicit.WAIT_S`. So a retry with a state lemon did not
mint, one already used, one for another tool or other arguments, or one answered too late
is refused, and only an explicit yes (``accept`` with ``approve`` true) lets the call run.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from typing import Any

from lemon_core.mcp.gateway import elicit

#: The input request's key in ``inputRequests`` / ``inputResponses``.
KEY = "lemon_approval"
#: At most this many unanswered approvals are remembered (the oldest is forgotten first).
MAX_PENDING = 64


def is_modern(protocol_version: str | None) -> bool:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return protocol_version in MODERN_PROTOCOL_VERSIONS


def can_ask(session: Any) -> bool:
    """Whether a 2026-07-28 request's client advertised form elicitation (per request)."""
    caps = getattr(session, "client_capabilities", None)
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    if elicitation is None:
        return False
    return elicitation.form is not None or elicitation.url is None


def _digest(name: str, arguments: dict[str, Any]) -> str:
    text = json.dumps([name, arguments], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Pending:
    """The approvals asked and not yet answered: nonce -> (call digest, deadline)."""

    def __init__(self, wait_s: float = elicit.WAIT_S, *, limit: int = MAX_PENDING) -> None:
        self.wait_s = wait_s
        self.limit = limit
        self._lock = threading.Lock()
        self._items: dict[str, tuple[str, float]] = {}

    def mint(self, name: str, arguments: dict[str, Any]) -> str:
        nonce = secrets.token_urlsafe(24)
        now = time.monotonic()
        with self._lock:
            self._items = {k: v for k, v in self._items.items() if v[1] > now}
            while len(self._items) >= self.limit:
                self._items.pop(next(iter(self._items)))
            self._items[nonce] = (_digest(name, arguments), now + self.wait_s)
        return nonce

    def redeem(self, state: Any, name: str, arguments: dict[str, Any]) -> bool:
        """True once for a state minted for this very call and still within its time."""
        if not isinstance(state, str):
            return False
        with self._lock:
            item = self._items.pop(state, None)
        return (item is not None and item[1] > time.monotonic()
                and secrets.compare_digest(item[0], _digest(name, arguments)))


def input_required(request: Any, state: str) -> Any:
    """The ``InputRequiredResult`` asking ``request`` (a :class:`~lemon_core.approval.CallApproval`) with the form."""
    import mcp_types as types

    form = types.ElicitRequestFormParams(message=elicit.message(request),
                                         requested_schema=elicit.SCHEMA)
    return types.InputRequiredResult(input_requests={KEY: types.ElicitRequest(params=form)},
                                     request_state=state)


def answered_yes(input_responses: Any) -> bool:
    """Whether the retry carries an explicit yes to :data:`KEY`."""
    import mcp_types as types

    answer = (input_responses or {}).get(KEY) if isinstance(input_responses, dict) else None
    if not isinstance(answer, types.ElicitResult) or answer.action != "accept":
        return False
    return (answer.content or {}).get("approve") is True


__all__ = ["KEY", "MAX_PENDING", "Pending", "answered_yes", "can_ask", "input_required",
           "is_modern"]
