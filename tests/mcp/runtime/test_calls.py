"""Call bounds, filters and the approval rule without a server."""

from __future__ import annotations

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.mcp.runtime.approvals import check, entry_requires
from lemon_core.mcp.runtime.calls import MAX_CALL_S, call_timeout
from lemon_core.mcp.runtime.filters import allowed
from lemon_core.mcp.runtime.inventory import HostedTool
from lemon_core.models import McpServer, ServerSource

SRC = ServerSource("lemon", "project")


def _server(**kw: object) -> McpServer:
    return McpServer(name="s", transport="stdio", source=SRC, command="x", **kw)  # type: ignore[arg-type]


def test_the_call_timeout_is_the_entry_s_capped_at_300_s() -> None:
    assert call_timeout(_server()) == 10.0
    assert call_timeout(_server(timeout_ms=2500)) == 2.5
    assert call_timeout(_server(timeout_ms=3_600_000)) == MAX_CALL_S == 300.0


def test_filters_are_exact_and_block_wins() -> None:
    assert allowed("a", None, None)
    assert not allowed("a", ["a"], ["a"])
    assert not allowed("A", ["a"], None)  # exact, no case folding
    assert not allowed("a*", None, ["a*"]) and allowed("ab", None, ["a*"])  # no patterns


def test_exact_override_wins_and_utilities_use_method_names() -> None:
    server = _server(approval="always", tool_approvals={"read": "never",
                                                        "resources/read": "never"})
    assert not entry_requires(server, "tool", "read")
    assert entry_requires(server, "tool", "write")
    assert not entry_requires(server, "utility", "resource_read")
    assert entry_requires(server, "utility", "resources_list")
    assert not entry_requires(_server(), "tool", "write")  # no approval field: never
    assert entry_requires(_server(tool_approvals={"write": "always"}), "tool", "write")


def test_one_request_at_most_and_never_silent() -> None:
    tool = HostedTool("mcp_s_w_0123456789abcdef", "s", "id", "w", "tool", None, {}, False)
    asked: list[object] = []
    check(tool, {}, policy=None, approver=lambda r: asked.append(r) or False)
    assert asked == []  # nothing required, nothing asked
    with pytest.raises(ApprovalRefused):
        check(tool, {"token": "v"}, policy=lambda t: True, approver=None)
    check(tool, {"token": "v"}, policy=lambda t: True,
          approver=lambda r: asked.append(r) or True)
    assert len(asked) == 1 and asked[0].argument_names == ("token",)  # names, not values
