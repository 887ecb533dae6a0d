"""The approval form's text and answers, and the refusal for clients that cannot be asked."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest

from lemon_core.approval import CallApproval
from lemon_core.mcp.gateway import elicit
from lemon_core.mcp.runtime.inventory import HostedTool
from lemon_core.models import ServerSource

REQUEST = CallApproval("mcp_git_push_0123456789abcdef", "git", "push", ("remote", "token"))


class Session:
    """The server session's two members the gateway reads, and its form request."""

    def __init__(self, caps: Any, answer: Any = None, *, can_send: bool = True,
                 hang: bool = False) -> None:
        self.client_capabilities = caps
        self.can_send_request = can_send
        self.answer, self.hang, self.asked = answer, hang, []

    async def elicit_form(self, message: str, schema: Any, related: Any = None) -> Any:
        self.asked.append((message, schema, related))
        if self.hang:
            await anyio.sleep(3600)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


FORM = types.ClientCapabilities(elicitation=types.ElicitationCapability())


def test_only_a_client_advertising_form_elicitation_can_be_asked() -> None:
    assert elicit.can_elicit(Session(FORM))
    assert elicit.can_elicit(Session(types.ClientCapabilities(
        elicitation=types.ElicitationCapability(form=types.FormElicitationCapability()))))
    assert not elicit.can_elicit(Session(types.ClientCapabilities(
        elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability()))))
    assert not elicit.can_elicit(Session(types.ClientCapabilities()))
    assert not elicit.can_elicit(Session(None))
    assert not elicit.can_elicit(Session(FORM, can_send=False))  # the 2026 protocol


def test_the_message_names_the_tool_server_and_argument_names_only() -> None:
    text = elicit.message(CallApproval("n", "git\x1b[2J", "push", ("remote", "token")))
    assert "push" in text and "remote, token" in text and "values not shown" in text
    assert "\x1b" not in text


@pytest.mark.parametrize(("answer", "allowed"), [
    (types.ElicitResult(action="accept", content={"approve": True}), True),
    (types.ElicitResult(action="accept", content={"approve": False}), False),
    (types.ElicitResult(action="accept", content={"approve": "yes"}), False),
    (types.ElicitResult(action="accept"), False),
    (types.ElicitResult(action="decline"), False),
    (types.ElicitResult(action="cancel"), False),
    (RuntimeError("the client answered with an error"), False),
])
def test_only_an_explicit_yes_allows(answer: Any, allowed: bool) -> None:
    session = Session(FORM, answer)
    assert anyio.run(elicit.ask, session, REQUEST, 7) is allowed
    _message, schema, related = session.asked[0]
    assert schema == elicit.SCHEMA and related == 7


def test_no_answer_in_time_refuses() -> None:
    session = Session(FORM, hang=True)
    assert anyio.run(lambda: elicit.ask(session, REQUEST, None, 0.2)) is False


def test_the_refusal_says_where_to_allow_it() -> None:
    tool = HostedTool("mcp_git_push_x", "git", "id", "push", "tool", None, {}, True)
    lemon = ServerSource("lemon", "project", "/p/.lemon/mcp.json")
    text = elicit.how_to_allow(tool, "push", lemon)
    assert '"tool_approvals": {"push": "never"}' in text and '"approval": "never"' in text
    assert 'on the "git" entry in /p/.lemon/mcp.json' in text and "nothing was called" in text
    assert "(env:env)" in elicit.how_to_allow(tool, "push", ServerSource("env", "env"))
