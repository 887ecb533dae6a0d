"""Approvals on the 2026-07-28 protocol: the pending states, the form, the answer; and the
gateway in process driven round by round by the SDK's client (replays, forged states)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from lemon_core.approval import CallApproval
from lemon_core.context import LemonContext
from lemon_core.mcp.gateway import elicit, rounds
from lemon_core.mcp.gateway.bridge import Gateway
from lemon_core.mcp.gateway.server import build_server
from tests.mcp.runtime.support import stdio_entry, write_project

pytest.importorskip("mcp")

REQUEST = CallApproval("mcp_git_push_0123456789abcdef", "git", "push", ("remote",))
YES = {rounds.KEY: types.ElicitResult(action="accept", content={"approve": True})}


def test_a_state_is_redeemed_once_for_its_own_call_only() -> None:
    pending = rounds.Pending(60)
    state = pending.mint("t", {"a": 1})
    assert not pending.redeem(state, "t", {"a": 2})  # other arguments: refused, and spent
    assert not pending.redeem(state, "t", {"a": 1})
    state = pending.mint("t", {"a": 1})
    assert not pending.redeem("forged", "t", {"a": 1}) and not pending.redeem(None, "t", {})
    assert pending.redeem(state, "t", {"a": 1})
    assert not pending.redeem(state, "t", {"a": 1})  # used once


def test_a_state_expires_and_the_oldest_is_forgotten_first() -> None:
    late = rounds.Pending(0.05)
    state = late.mint("t", {})
    time.sleep(0.1)
    assert not late.redeem(state, "t", {})
    small = rounds.Pending(60, limit=2)
    first, second, third = (small.mint("t", {}) for _ in range(3))
    assert not small.redeem(first, "t", {})
    assert small.redeem(second, "t", {}) and small.redeem(third, "t", {})


def test_the_input_request_is_the_same_form() -> None:
    result = rounds.input_required(REQUEST, "s")
    asked = result.input_requests[rounds.KEY]
    assert result.request_state == "s" and asked.method == "elicitation/create"
    assert asked.params.requested_schema == elicit.SCHEMA
    assert asked.params.message == elicit.message(REQUEST)


@pytest.mark.parametrize(("responses", "yes"), [
    (YES, True),
    ({rounds.KEY: types.ElicitResult(action="accept", content={"approve": False})}, False),
    ({rounds.KEY: types.ElicitResult(action="accept", content={"approve": "true"})}, False),
    ({rounds.KEY: types.ElicitResult(action="decline")}, False),
    ({"other": YES[rounds.KEY]}, False),
    (None, False),
])
def test_only_an_explicit_yes_counts(responses: Any, yes: bool) -> None:
    assert rounds.answered_yes(responses) is yes


def test_only_a_client_advertising_form_elicitation_is_asked() -> None:
    class Session:
        def __init__(self, caps: Any) -> None:
            self.client_capabilities = caps

    assert rounds.can_ask(Session(types.ClientCapabilities(
        elicitation=types.ElicitationCapability())))
    assert not rounds.can_ask(Session(types.ClientCapabilities(
        elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability()))))
    assert not rounds.can_ask(Session(types.ClientCapabilities()))
    assert rounds.is_modern("2026-07-28") and not rounds.is_modern("2025-11-25")


def _texts(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def test_round_by_round_a_state_answers_one_call_once(
        make_ctx: Callable[..., LemonContext], tmp_path: Path) -> None:
    from mcp import Client

    ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))
    marker = tmp_path / "marker"
    write_project(ctx.cwd, stdio_entry("alpha", "full", tmp_path / "a.log", marker,
                                       tool_approvals={"touch": "always", "read_file": "always"}))
    gateway = Gateway(ctx)
    server = build_server(gateway, version="test")

    async def no_form(context: Any, params: Any) -> Any:  # advertises elicitation
        raise AssertionError("driven by hand here")

    async def body() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with anyio.create_task_group() as tg:
            tg.start_soon(gateway.run)
            async with Client(server, mode="2026-07-28", elicitation_callback=no_form) as client:
                tools = (await client.list_tools()).tools
                touch = next(t.name for t in tools if t.name.startswith("mcp_alpha_touch_"))
                read = next(t.name for t in tools if t.name.startswith("mcp_alpha_read_file_"))
                session = client.session
                first = await session.call_tool(touch, {}, allow_input_required=True)
                out["first"] = first
                out["called_early"] = marker.exists()
                state = first.request_state
                # forged state, the state for other arguments, then for another tool
                out["forged"] = await session.call_tool(
                    touch, {}, input_responses=YES, request_state="v1.forged",
                    allow_input_required=True)
                other = (await session.call_tool(read, {"path": "x"},
                                                 allow_input_required=True)).request_state
                out["other_tool"] = await session.call_tool(
                    touch, {}, input_responses=YES, request_state=other,
                    allow_input_required=True)
                out["yes"] = await session.call_tool(touch, {}, input_responses=YES,
                                                     request_state=state,
                                                     allow_input_required=True)
                out["replay"] = await session.call_tool(touch, {}, input_responses=YES,
                                                        request_state=state,
                                                        allow_input_required=True)
                out["no_state"] = await session.call_tool(touch, {}, input_responses=YES,
                                                          allow_input_required=True)
            tg.cancel_scope.cancel()
        return out

    try:
        out = anyio.run(body)
    finally:
        gateway.close()
    assert isinstance(out["first"], types.InputRequiredResult) and not out["called_early"]
    for refused in ("forged", "other_tool", "replay"):
        assert out[refused].is_error and "call the tool again" in _texts(out[refused])
    assert not out["yes"].is_error and _texts(out["yes"]) == "touched"
    assert marker.read_text() == "called\n"  # once: the replay called nothing
    assert isinstance(out["no_state"], types.InputRequiredResult)  # a bare "yes" is asked
