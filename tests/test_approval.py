"""One approval vocabulary: the questions of writes and of MCP calls are both approval
requests, refused by one exception, and ``approve=True | callback | None`` is one typed
:class:`Consent`."""

from __future__ import annotations

import pytest

from lemon_core.approval import (
    ApprovalRefused,
    ApprovalRequest,
    CallApproval,
    Consent,
    WriteApproval,
)
from lemon_core.errors import LemonError

QUESTION = WriteApproval(stage="install", identifier="gh:o/r", source="gh", trust="community",
                         scope="global", keys=("pdf",))


def test_every_kind_is_an_approval_request() -> None:
    from lemon_core.mcp.runtime.authorize import OAuthApproval
    from lemon_core.mcp.runtime.sampling import SamplingApproval

    call = CallApproval("mcp_git_push_0123", "git", "push", ("remote",))
    for request in (QUESTION, call, OAuthApproval("n", "s", "oauth/authorize", ()),
                    SamplingApproval("n", "s", "sampling/createMessage", ())):
        assert isinstance(request, ApprovalRequest)


def test_one_refusal_for_writes_and_calls() -> None:
    from lemon_core.install.edits import EditsWouldBeLost
    from lemon_core.install.update import TrustChangeRefused
    from lemon_core.mcp.runtime import approvals

    assert issubclass(ApprovalRefused, LemonError)
    assert issubclass(EditsWouldBeLost, ApprovalRefused)
    assert issubclass(TrustChangeRefused, ApprovalRefused)

    class Tool:
        name, server, kind, raw, approval = "mcp_git_push_0123", "git", "tool", "push", True

    with pytest.raises(ApprovalRefused, match="needs approval and nothing can ask"):
        approvals.check(Tool(), {"remote": "x"}, policy=None, approver=None)
    asked: list[CallApproval] = []
    with pytest.raises(ApprovalRefused, match="was not approved"):
        approvals.check(Tool(), {"remote": "x"}, policy=None,
                        approver=lambda r: asked.append(r) or False)
    assert asked == [CallApproval("mcp_git_push_0123", "git", "push", ("remote",))]


def test_consent_of_each_form_of_approve() -> None:
    def callback(request: WriteApproval) -> bool:
        return True

    assert Consent.of(True) == Consent(in_advance=True)
    assert Consent.of(None) == Consent() == Consent.of(False)
    assert Consent.of(callback) == Consent(ask=callback)
    assert Consent.of(Consent.of(callback)) == Consent(ask=callback)
    assert Consent.of(True).given and not Consent.of(None).given
    assert Consent(ask=callback, in_advance=True).asked_only() == Consent(ask=callback)
    assert Consent.of(callback).approve() is callback and Consent.of(True).approve() is True


def test_require_approves_in_advance_asks_or_refuses_saying_how() -> None:
    Consent.of(True).require(QUESTION)
    Consent.of(lambda r: True).require(QUESTION)
    with pytest.raises(ApprovalRefused) as refused:
        Consent.of(None).require(QUESTION)
    assert str(refused.value) == ("installing pdf needs approval; pass approve=True or an "
                                  "approval callback")
    with pytest.raises(ApprovalRefused, match="installing pdf was not approved; nothing was"):
        Consent.of(lambda r: False).require(QUESTION)
