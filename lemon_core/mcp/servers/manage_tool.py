"""The ``skill_manage`` tool of ``lemon skill serve``: :func:`lemon_core.skills.manage.manage`
as the spec's agent tool (not on ``--read-only``, never on ``lazy-skills-mcp``).

Arguments: ``action`` and ``key`` (required), ``scope`` (``project``, the default, or
``global``), ``content``, ``old``/``new``, ``path``. The result (structured content and the
same JSON in a text block) is the action, key, scope and outcome, the folder written, the
audit's verdict and findings, or a report's rows; a refusal is a tool error whose text says
why (a blocked bundle lists the findings). The tool call's request id is the call id every
``lemon_skill_written`` event carries. Under ``[skills] write_approval = true`` the person is
asked through MCP elicitation (form mode); a client without elicitation is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemon_core.text import defang

NAME = "skill_manage"
_ACTIONS = ["create", "edit", "patch", "delete", "write_file", "remove_file", "pin", "unpin",
            "archive", "restore", "report"]

DESCRIPTION = (
    "Record what you learned as a skill, or maintain skills you wrote. Actions: create (content "
    "is the whole SKILL.md, with name and description front matter), edit (replace the whole "
    "SKILL.md), patch (replace the exact text old with new; it must occur once), write_file / "
    "remove_file (path under references/, templates/, scripts/ or assets/), delete, pin / unpin "
    "(a pinned skill is never deleted or archived), archive / restore (disable / enable), "
    "report (usage and stale candidates). scope is project (default) or global. Every write "
    "is linted and security-audited like an install; a refusal says why."
)

SCHEMA = {"type": "object", "required": ["action", "key"], "additionalProperties": False,
          "properties": {
              "action": {"type": "string", "enum": _ACTIONS},
              "key": {"type": "string", "description": "The skill's key (its folder name)."},
              "scope": {"type": "string", "enum": ["project", "global"],
                        "default": "project"},
              "content": {"type": "string",
                          "description": "create/edit: the whole SKILL.md; write_file: the "
                                         "file's text."},
              "old": {"type": "string", "description": "patch: the exact text to replace."},
              "new": {"type": "string", "description": "patch: the text to put instead."},
              "path": {"type": "string",
                       "description": "write_file/remove_file: a path relative to the skill "
                                      "folder, under references/, templates/, scripts/ or "
                                      "assets/."}}}

_PROPERTIES = ("action", "key", "scope", "content", "old", "new", "path")

ELICIT_SCHEMA = {"type": "object", "required": ["approve"], "properties": {"approve": {
    "type": "boolean", "title": "Approve this skill write", "default": False,
    "description": "Yes to let the agent make this change to lemon's skills once."}}}

WAIT_S = 120.0


def arguments_of(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The call's arguments checked for type (the library checks the rest)."""
    unknown = sorted(set(arguments) - set(_PROPERTIES))
    if unknown:
        raise ValueError(f"unknown argument(s) {', '.join(unknown)}; the arguments are "
                         f"{', '.join(_PROPERTIES)}")
    for name, value in arguments.items():
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be a string")
    if not arguments.get("action") or not arguments.get("key") and \
            arguments.get("action") != "report":
        raise ValueError("action and key are required")
    return {k: v for k, v in arguments.items() if v is not None}


def approval_message(request: Any) -> str:
    """What the person reads (:func:`lemon_core.skills.manage.describe`): never the content."""
    from lemon_core.skills.manage import describe

    return describe(request)


def can_elicit(session: Any) -> bool:
    """Whether the client advertised form elicitation and this connection can send it a
    request."""
    caps = getattr(session, "client_capabilities", None)
    elicitation = getattr(caps, "elicitation", None) if caps is not None else None
    if elicitation is None or not getattr(session, "can_send_request", False):
        return False
    return elicitation.form is not None or elicitation.url is None


async def _ask(session: Any, request: Any, request_id: Any) -> bool:
    import anyio

    result = None
    with anyio.move_on_after(WAIT_S):
        try:
            result = await session.elicit_form(approval_message(request), ELICIT_SCHEMA,
                                               request_id)
        except Exception:  # noqa: BLE001 - an error answer, a closed connection: refused
            return False
    if result is None or result.action != "accept":
        return False
    return (result.content or {}).get("approve") is True


async def call(backend: Any, session: Any, request_id: Any,
               arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Run one ``skill_manage`` call in a worker thread (the write is disk and audit work);
    an approval is asked back on the event loop."""
    import anyio

    from lemon_core.skills.manage import manage

    wanted = arguments_of(arguments)
    real = backend.get() if hasattr(backend, "get") else backend
    approver = None
    if session is not None and can_elicit(session):

        def approver(request: Any) -> bool:
            return bool(anyio.from_thread.run(_ask, session, request, request_id))

    def run() -> dict[str, Any]:
        result = manage(wanted.pop("action"), wanted.pop("key", ""), real.ctx,
                        approve=approver, call_id=None if request_id is None else
                        str(request_id), workspace=real.workspace, **wanted)
        return result.to_dict()

    data = await anyio.to_thread.run_sync(run)
    return _defanged(data)


def _defanged(value: Any) -> Any:
    if isinstance(value, str):
        return defang(value)
    if isinstance(value, dict):
        return {k: _defanged(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_defanged(v) for v in value]
    return value


__all__ = ["DESCRIPTION", "NAME", "SCHEMA", "approval_message", "arguments_of", "call"]
