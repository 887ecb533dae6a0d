"""Whether a call needs approval, and asking for it once.

The entry's requirement is its exact ``tool_approvals`` value for the raw tool name (for
lemon's utilities, the MCP method: ``resources/list``, ``resources/read``, ``prompts/list``,
``prompts/get``), else its ``approval`` (missing means ``never``). It is ORed with the
caller's policy: either can require approval, and then the caller's approver callback is asked
exactly once with a :class:`~lemon_core.approval.CallApproval`. Without an approver a call that
needs approval is refused (:class:`~lemon_core.approval.ApprovalRefused`): the library never
approves silently. The questions and the refusal are the library's one approval vocabulary
(:mod:`lemon_core.approval`); this module decides only when a call must ask.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lemon_core.approval import ApprovalRefused, CallApproval
from lemon_core.approval import Approver as _Approver
from lemon_core.errors import Option, Voiced
from lemon_core.mcp.runtime.names import UTILITIES
from lemon_core.models import McpServer

#: ``policy(tool) -> True`` when the caller itself requires approval for ``tool``.
Policy = Callable[[Any], bool]
#: ``approver(request) -> True`` to allow the call (the host's approver is asked every kind
#: of call question: :class:`~lemon_core.approval.CallApproval` and its sampling and OAuth kinds).
Approver = _Approver[CallApproval]


def approval_key(kind: str, raw: str) -> str:
    return UTILITIES[raw] if kind == "utility" else raw


def entry_requires(server: McpServer, kind: str, raw: str) -> bool:
    """The entry's own requirement: an exact ``tool_approvals`` value wins over ``approval``."""
    exact = server.tool_approvals.get(approval_key(kind, raw))
    if exact is not None:
        return exact == "always"
    return server.approval == "always"


def needed(tool: Any, policy: Policy | None) -> bool:
    """Whether calling ``tool`` needs approval: its entry's requirement or the caller's."""
    return bool(tool.approval) or (policy is not None and bool(policy(tool)))


def check(tool: Any, arguments: dict[str, Any], *, policy: Policy | None,
          approver: Approver | None) -> None:
    """Raise :class:`ApprovalRefused` unless ``tool`` may be called now (asks at most once)."""
    if needed(tool, policy):
        ask(tool, arguments, approver)


def ask(tool: Any, arguments: dict[str, Any], approver: Approver | None) -> None:
    """Ask ``approver`` once about a call that needs approval; raise
    :class:`ApprovalRefused` unless it says yes (or when there is no approver)."""
    if approver is None:
        raise ApprovalRefused(f"{tool.name} needs approval and nothing can ask for it",
                              advice=(Voiced("", "run it on a terminal, "), "pass ",
                                      Option("approver", metavar="CALLABLE"),
                                      ", or set its tool_approvals entry to \"never\""))
    request = CallApproval(tool.name, tool.server, approval_key(tool.kind, tool.raw),
                              tuple(sorted(arguments)))
    if not approver(request):
        raise ApprovalRefused(f"{tool.name} was not approved; nothing was called")


__all__ = ["Approver", "Policy", "approval_key", "ask", "check", "entry_requires", "needed"]
