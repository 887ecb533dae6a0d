"""Sampling: a server asking the host's model for a completion (``sampling/createMessage``).

Off unless the embedder passes ``sampler=`` to :class:`~lemon_core.mcp.runtime.host.McpHost`;
then, and only then, every connection advertises the ``sampling`` capability (without its
``tools`` or ``context`` sub-capabilities) and each request runs through two steps:

1. the host's ``approver`` is asked, every time, with a :class:`SamplingApproval`: an
   :class:`~lemon_core.approval.CallApproval` whose ``name`` and ``target`` are
   ``sampling/createMessage`` and whose ``summary`` (:class:`SamplingSummary`) holds a hash of
   the request, the message count, roles and sizes, the requested model preferences and max
   tokens, never the text. Without an approver, or when it says no or fails, the server gets
   the MCP error "user rejected" (code -1) and the sampler is not called;
2. the ``sampler`` gets a :class:`SamplingRequest` (the summary and the SDK's full
   ``CreateMessageRequestParams``) and returns a :class:`Sample` or the SDK's
   ``CreateMessageResult``; if it raises, the server gets a fixed internal error.

Both callbacks are plain functions, run in a worker thread (never on the host's event loop).
Without a sampler, servers see no sampling capability and a request gets the SDK's standard
"Sampling not supported" error.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import attrs

from lemon_core.approval import CallApproval
from lemon_core.mcp.runtime.approvals import Approver

METHOD = "sampling/createMessage"
#: The MCP error code for a sampling request the user rejected.
USER_REJECTED = -1


@attrs.frozen
class SamplingSummary:
    """What an approver may see of a sampling request: no message or system-prompt text.
    ``request_hash`` is the SHA-256 of the request's canonical JSON (without ``_meta``);
    ``message_chars`` the characters per message (text, or the encoded size of other content);
    ``model_hints`` are the server's words (escape them before printing)."""

    request_hash: str
    message_count: int
    roles: tuple[str, ...]
    message_chars: tuple[int, ...]
    total_chars: int
    system_prompt_chars: int
    max_tokens: int
    model_hints: tuple[str, ...] = ()
    cost_priority: float | None = None
    speed_priority: float | None = None
    intelligence_priority: float | None = None
    include_context: str | None = None
    #: (kind, count) per content kind of the messages, sorted: ``(("image", 1), ("text", 2))``
    content_kinds: tuple[tuple[str, int], ...] = ()


@attrs.frozen
class SamplingPolicy:
    """What a host lets servers sample. ``max_tokens``: the most a request may ask for (None:
    no cap); ``allowed_models``: the model names a request's hints must match (a hint matches
    a model whose name contains it, as MCP hints are substrings; empty: any model; a request
    without hints leaves the choice to the sampler); ``mode``: ``reviewed`` (the default: the
    reviewer, the host's approver, sees the summary and approves before the sampler, the
    delegate, sees the request) or ``direct`` (no reviewer: the policy's limits only, for an
    embedder whose sampler reviews on its own)."""

    max_tokens: int | None = None
    allowed_models: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    mode: str = attrs.field(default="reviewed")

    @mode.validator
    def _mode(self, _: Any, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"sampling mode must be one of {', '.join(MODES)}")

    def refusal(self, summary: SamplingSummary) -> str | None:
        """Why this policy refuses the request ``summary`` describes, or None."""
        if self.max_tokens is not None and summary.max_tokens > self.max_tokens:
            return (f"the request asks for {summary.max_tokens} tokens and this client allows "
                    f"at most {self.max_tokens}")
        if self.allowed_models and summary.model_hints and not any(
                hint in model for hint in summary.model_hints for model in self.allowed_models):
            return ("the requested model is not on this client's list of allowed models "
                    f"({', '.join(self.allowed_models)})")
        return None


#: The policy modes.
MODES = ("reviewed", "direct")
#: The MCP error code of a request the policy refuses (its parameters are outside it).
POLICY_REFUSED = -32602


@attrs.frozen
class SamplingApproval(CallApproval):
    """An approval request for one sampling request from ``server``."""

    summary: SamplingSummary | None = None


@attrs.frozen
class SamplingRequest:
    """What the sampler gets: the server's name, the summary the approver saw, and the SDK's
    ``CreateMessageRequestParams`` (messages, system prompt, max tokens, ...)."""

    server: str
    summary: SamplingSummary
    params: Any


@attrs.frozen
class Sample:
    """A sampler's answer: the assistant's text and the model that wrote it."""

    text: str
    model: str
    stop_reason: str | None = "endTurn"


#: ``sampler(request) -> Sample | CreateMessageResult``
Sampler = Callable[[SamplingRequest], Any]


def _chars(block: Any) -> int:
    if isinstance(block, list):
        return sum(_chars(b) for b in block)
    text = getattr(block, "text", None)
    if isinstance(text, str):
        return len(text)
    data = getattr(block, "data", None)
    if isinstance(data, str):
        return len(data)
    return len(block.model_dump_json(by_alias=True, exclude_none=True))


def summarize(params: Any) -> SamplingSummary:
    """The redacted summary of ``params`` (the SDK's ``CreateMessageRequestParams``)."""
    dumped = params.model_dump(mode="json", by_alias=True, exclude_none=True)
    dumped.pop("_meta", None)
    canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    sizes = tuple(_chars(m.content) for m in params.messages)
    kinds: dict[str, int] = {}
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        for block in blocks:
            kind = str(getattr(block, "type", "other"))
            kinds[kind] = kinds.get(kind, 0) + 1
    prefs = params.model_preferences
    hints = tuple(h.name for h in (prefs.hints or ()) if h.name) if prefs else ()
    return SamplingSummary(
        request_hash=hashlib.sha256(canonical.encode()).hexdigest(),
        message_count=len(params.messages), roles=tuple(m.role for m in params.messages),
        message_chars=sizes, total_chars=sum(sizes),
        system_prompt_chars=len(params.system_prompt or ""), max_tokens=params.max_tokens,
        model_hints=hints,
        cost_priority=prefs.cost_priority if prefs else None,
        speed_priority=prefs.speed_priority if prefs else None,
        intelligence_priority=prefs.intelligence_priority if prefs else None,
        include_context=params.include_context, content_kinds=tuple(sorted(kinds.items())))


def _result(answer: Any) -> Any:
    import mcp_types as types

    if isinstance(answer, Sample):
        return types.CreateMessageResult(role="assistant", model=answer.model,
                                         content=types.TextContent(type="text", text=answer.text),
                                         stop_reason=answer.stop_reason)
    if isinstance(answer, types.CreateMessageResult | types.CreateMessageResultWithTools):
        return answer
    return types.ErrorData(code=types.INTERNAL_ERROR,
                           message="the client's sampler returned no sample")


def entry_policy(server: Any) -> SamplingPolicy | None:
    """The ``sampling`` object of ``server``'s entry in lemon's file (validated by
    :mod:`lemon_core.mcp.schema`) as a policy, or None."""
    data = server.extra.get("sampling") if server is not None else None
    if not isinstance(data, dict):
        return None
    return SamplingPolicy(max_tokens=data.get("max_tokens"),
                          allowed_models=tuple(data.get("allowed_models") or ()),
                          mode=data.get("mode", "reviewed"))


def callback(sampler: Sampler, approver_of: Callable[[], Approver | None], server: str,
             host: SamplingPolicy | None = None, entry: SamplingPolicy | None = None) -> Any:
    """The SDK ``sampling_callback`` for one server's connection (``approver_of()``: the
    approver to ask now, or None). Both the ``host``'s policy (None: reviewed, no limits) and
    the ``entry``'s must allow a request; it is reviewed unless both are ``direct`` (so an
    entry, which a project's file may hold, can only tighten what the embedder chose)."""
    rules = [host or SamplingPolicy()] + ([entry] if entry is not None else [])
    direct = all(p.mode == "direct" for p in rules)

    async def sampling(context: Any, params: Any) -> Any:
        import anyio
        import mcp_types as types

        summary = summarize(params)
        refusal = next((why for why in (p.refusal(summary) for p in rules) if why), None)
        if refusal is not None:  # the server sees why; nobody is asked
            return types.ErrorData(code=POLICY_REFUSED,
                                   message=f"sampling refused by the client's policy: {refusal}")
        approver = approver_of()
        request = SamplingApproval(METHOD, server, METHOD, (), summary)
        try:
            allowed = direct or (approver is not None and bool(
                await anyio.to_thread.run_sync(approver, request)))
        except Exception:  # noqa: BLE001 - an approver that fails has not approved
            allowed = False
        if not allowed:
            why = "was rejected by the user" if approver is not None else \
                "needs approval and this client has no approver"
            return types.ErrorData(code=USER_REJECTED, message=f"the sampling request {why}")
        try:
            answer = await anyio.to_thread.run_sync(sampler, SamplingRequest(server, summary,
                                                                             params))
        except Exception:  # noqa: BLE001 - never the sampler's own text
            return types.ErrorData(code=types.INTERNAL_ERROR,
                                   message="the client's sampler failed")
        return _result(answer)

    return sampling


__all__ = ["METHOD", "MODES", "POLICY_REFUSED", "USER_REJECTED", "Sample", "Sampler",
           "SamplingApproval", "SamplingPolicy", "SamplingRequest", "SamplingSummary",
           "callback", "entry_policy", "summarize"]
