"""Sampling through the tool host, against a real stdio server that samples inside a tool:
with a sampler (the approver sees only the redacted summary; the result goes back into the
tool), refused by the approver, without an approver, a failing sampler, and without a sampler
(no capability advertised, the SDK's standard error)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.runtime.host import McpHost
from lemon_core.mcp.runtime.sampling import (
    METHOD,
    Sample,
    SamplingApproval,
    SamplingRequest,
    summarize,
)
from tests.mcp.runtime.support import SECRET, SLOW, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

SERVER = str(Path(__file__).parent / "sampling_server.py")
QUESTION = "What is the PRIVATE-QUESTION-TEXT?"
TEXTS = (QUESTION, "PRIVATE-QUESTION-TEXT", "SYSTEM-PROMPT-TEXT", "hello", "hi there")


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    ctx = make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))
    write_project(ctx.cwd, {"name": "sampler", "type": "stdio", "command": sys.executable,
                            "args": [SERVER], "env": {"API_KEY": SECRET}, **SLOW})
    return ctx


def _text(host: McpHost, raw: str, **args: Any) -> str:
    tool = next(t.name for t in host.tools() if t.raw == raw)
    result = host.call(tool, args)
    assert result.ok and not result.is_error, result
    return str(result.result["content"][0]["text"])  # type: ignore[index]


class Recorder:
    def __init__(self, allow: bool = True, fail: bool = False) -> None:
        self.allow, self.fail = allow, fail
        self.approvals: list[Any] = []
        self.samples: list[SamplingRequest] = []

    def approve(self, request: Any) -> bool:
        self.approvals.append(request)
        return self.allow

    def sample(self, request: SamplingRequest) -> Sample:
        self.samples.append(request)
        if self.fail:
            raise RuntimeError(f"model down, key {SECRET}")
        last = request.params.messages[-1].content.text
        return Sample(text=f"answer to {last}", model="test-model")


def test_summary_counts_without_text() -> None:
    import mcp_types as types

    def params(question: str) -> Any:
        return types.CreateMessageRequestParams(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(
                type="text", text=question))], max_tokens=9, system_prompt="sys")

    one, two = summarize(params("abc")), summarize(params("abd"))
    assert (one.message_count, one.roles, one.message_chars, one.total_chars) == \
        (1, ("user",), (3,), 3)
    assert one.system_prompt_chars == 3 and one.max_tokens == 9 and one.model_hints == ()
    assert one.request_hash != two.request_hash and len(one.request_hash) == 64
    assert summarize(params("abc")) == one  # stable
    assert "abc" not in repr(one)


def test_a_sample_goes_back_into_the_tool_after_a_redacted_approval(ctx: LemonContext) -> None:
    seen = Recorder()
    with McpHost(ctx, sampler=seen.sample, approver=seen.approve) as host:
        assert _text(host, "capability") == "sampling"
        assert _text(host, "ask", question=QUESTION) == f"test-model|answer to {QUESTION}"
    (approval,), (sample,) = seen.approvals, seen.samples
    assert isinstance(approval, SamplingApproval)
    assert (approval.name, approval.target, approval.server) == (METHOD, METHOD, "sampler")
    summary = approval.summary
    assert summary is not None and summary == sample.summary
    assert summary.message_count == 3 and summary.roles == ("user", "assistant", "user")
    assert summary.message_chars == (5, 8, len(QUESTION))
    assert summary.total_chars == 13 + len(QUESTION)
    assert summary.system_prompt_chars == len("SYSTEM-PROMPT-TEXT")
    assert summary.max_tokens == 77 and summary.model_hints == ("claude-hint",)
    assert summary.intelligence_priority == 0.9
    shown = repr(approval)
    assert not any(text in shown for text in TEXTS) and SECRET not in shown
    assert sample.params.system_prompt == "SYSTEM-PROMPT-TEXT"  # the sampler sees it all


def test_an_approver_saying_no_means_the_sampler_never_runs(ctx: LemonContext) -> None:
    seen = Recorder(allow=False)
    with McpHost(ctx, sampler=seen.sample, approver=seen.approve) as host:
        answer = _text(host, "ask", question=QUESTION)
    assert answer.startswith("error|-1|") and "rejected" in answer
    assert len(seen.approvals) == 1 and seen.samples == []


def test_without_an_approver_sampling_is_refused(ctx: LemonContext) -> None:
    seen = Recorder()
    with McpHost(ctx, sampler=seen.sample) as host:
        answer = _text(host, "ask", question=QUESTION)
    assert answer.startswith("error|-1|") and "no approver" in answer and seen.samples == []


@pytest.mark.slow
def test_a_failing_sampler_is_a_fixed_error(ctx: LemonContext) -> None:
    seen = Recorder(fail=True)
    with McpHost(ctx, sampler=seen.sample, approver=seen.approve) as host:
        answer = _text(host, "ask", question=QUESTION)
    assert answer == "error|-32603|the client's sampler failed" and SECRET not in answer


@pytest.mark.slow
def test_without_a_sampler_no_capability_and_the_sdk_error(ctx: LemonContext) -> None:
    asked: list[Any] = []
    with McpHost(ctx, approver=lambda r: asked.append(r) or True) as host:
        assert _text(host, "capability") == "none"
        answer = _text(host, "ask", question=QUESTION)
    assert answer.startswith("error|") and "not supported" in answer
    assert asked == []  # nothing to approve


@pytest.mark.slow
def test_policy_refuses_over_the_cap_and_outside_the_models_with_a_reason(
        ctx: LemonContext) -> None:
    """Issue 23 §2: a request over max_tokens (the server asks for 77) or for a model outside
    allowed_models is refused before anyone is asked; the server sees the reason."""
    from lemon_core.mcp.runtime.sampling import POLICY_REFUSED, SamplingPolicy

    for policy, why in ((SamplingPolicy(max_tokens=50), "asks for 77 tokens and this client "
                         "allows at most 50"),
                        (SamplingPolicy(allowed_models=("gpt-x",)), "not on this client's "
                         "list of allowed models (gpt-x)")):
        rec = Recorder()
        with McpHost(ctx, approver=rec.approve, sampler=rec.sample,
                     sampling_policy=policy) as host:
            answer = _text(host, "ask", question=QUESTION)
        code, message = answer.split("|")[1:]
        assert int(code) == POLICY_REFUSED and why in message, answer
        assert rec.approvals == [] and rec.samples == []


@pytest.mark.slow
def test_policy_within_limits_is_reviewed_then_delegated(ctx: LemonContext) -> None:
    from lemon_core.mcp.runtime.sampling import SamplingPolicy

    rec = Recorder()
    policy = SamplingPolicy(max_tokens=77, allowed_models=["claude-hint-large", "other"])
    with McpHost(ctx, approver=rec.approve, sampler=rec.sample, sampling_policy=policy) as host:
        assert _text(host, "ask", question=QUESTION) == f"test-model|answer to {QUESTION}"
    assert len(rec.approvals) == 1 and len(rec.samples) == 1
    summary = rec.approvals[0].summary
    assert summary.content_kinds == (("text", 3),)
    assert not any(text in repr(summary) for text in TEXTS)


@pytest.mark.slow
def test_direct_mode_needs_no_reviewer_and_keeps_the_limits(ctx: LemonContext) -> None:
    from lemon_core.mcp.runtime.sampling import SamplingPolicy

    rec = Recorder()
    with McpHost(ctx, sampler=rec.sample,
                 sampling_policy=SamplingPolicy(mode="direct")) as host:
        assert _text(host, "ask", question="q") == "test-model|answer to q"
    assert rec.approvals == [] and len(rec.samples) == 1
    with pytest.raises(ValueError, match="sampling mode"):
        SamplingPolicy(mode="yolo")


def test_content_kinds_count_images_and_audio() -> None:
    import mcp_types as types

    image = types.ImageContent(type="image", data="aGk=", mime_type="image/png")
    audio = types.AudioContent(type="audio", data="aGk=", mime_type="audio/wav")
    params = types.CreateMessageRequestParams(messages=[
        types.SamplingMessage(role="user", content=image),
        types.SamplingMessage(role="user", content=audio),
        types.SamplingMessage(role="user", content=types.TextContent(type="text", text="x"))],
        max_tokens=5)
    assert summarize(params).content_kinds == (("audio", 1), ("image", 1), ("text", 1))


def _with_sampling(ctx: LemonContext, sampling: dict[str, Any]) -> None:
    write_project(ctx.cwd, {"name": "sampler", "type": "stdio", "command": sys.executable,
                            "args": [SERVER], "env": {"API_KEY": SECRET}, **SLOW,
                            "sampling": sampling})


@pytest.mark.slow
def test_the_entrys_policy_from_mcp_json_applies(ctx: LemonContext) -> None:
    """The entry's "sampling" object in lemon's mcp.json: its cap refuses the request."""
    _with_sampling(ctx, {"max_tokens": 10})
    rec = Recorder()
    with McpHost(ctx, approver=rec.approve, sampler=rec.sample) as host:
        answer = _text(host, "ask", question="q")
    assert "asks for 77 tokens and this client allows at most 10" in answer
    assert rec.approvals == [] and rec.samples == []


@pytest.mark.slow
def test_an_entry_cannot_skip_the_review(ctx: LemonContext) -> None:
    """A project's file saying "direct" does not remove the embedder's reviewer; the
    embedder's "direct" with the entry's "reviewed" is reviewed."""
    from lemon_core.mcp.runtime.sampling import SamplingPolicy

    _with_sampling(ctx, {"mode": "direct", "allowed_models": ["claude-hint-9"]})
    rec = Recorder(allow=False)
    with McpHost(ctx, approver=rec.approve, sampler=rec.sample) as host:
        assert "rejected" in _text(host, "ask", question="q")
    assert len(rec.approvals) == 1 and rec.samples == []

    _with_sampling(ctx, {"mode": "reviewed"})
    rec = Recorder(allow=True)
    with McpHost(ctx, approver=rec.approve, sampler=rec.sample,
                 sampling_policy=SamplingPolicy(mode="direct")) as host:
        assert _text(host, "ask", question="q") == "test-model|answer to q"
    assert len(rec.approvals) == 1 and len(rec.samples) == 1
