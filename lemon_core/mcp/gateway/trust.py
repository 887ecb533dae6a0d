"""Untrusted project servers, as the gateway's client sees them.

The tool host leaves a project's servers that the user has not trusted unstarted
(:mod:`lemon_core.mcp.trust`). So that the agent (and the person behind it) learns why tools
are missing, ``tools/list`` then carries one extra tool, :data:`TOOL`, whose description names
the servers and what the user must run. Calling it asks the person, through MCP elicitation
(``elicitation/create`` on the handshake protocols, an ``InputRequiredResult`` round on
2026-07-28), with every server's launch line (secret values never shown); only ``accept``
with ``approve`` true records the trust, exactly for the launch lines shown, and the servers
start at the rediscovery that follows. A client that cannot be asked gets a tool error saying
what the user must run in a terminal. The agent itself can never trust: only the person's
answer to the form, or ``lemon mcp trust``, does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lemon_core.mcp.trust.identity import launch_lines, record_name
from lemon_core.text import escape

#: The extra tool offered while project servers are untrusted.
TOOL = "lemon_trust_project_servers"
#: At most this many servers, and this many characters of each line, are shown in one form.
MAX_SHOWN, MAX_LINE = 20, 300


def _names(servers: Sequence[Any]) -> str:
    return ", ".join(f'"{escape(record_name(s))}"' for s in servers)


def command(project: str) -> str:
    """What the user runs in a terminal."""
    return f"lemon mcp trust --cwd {escape(project)}"


def description(servers: Sequence[Any], project: str) -> str:
    return (f"{len(servers)} MCP server(s) configured by this project ({_names(servers)}) are "
            "not trusted by the user, so lemon did not start them and their tools are not "
            "listed. Call this tool to ask the user (where the client can ask) whether to "
            f"trust them; otherwise ask the user to review them and run '{command(project)}' "
            "in a terminal. Then list the tools again. Never edit configuration files to get "
            "around this.")


def tool(servers: Sequence[Any], project: str) -> Any:
    import mcp_types as types

    return types.Tool(name=TOOL, description=description(servers, project),
                      input_schema={"type": "object", "properties": {}})


def message(servers: Sequence[Any], project: str) -> str:
    """The form's text: the project and each server's launch line (values never shown)."""
    lines = [(f"lemon: this project ({escape(project)}) configures MCP servers you have not "
              "trusted. Trusting lets lemon start these programs or contact these URLs, now "
              "and whenever they are unchanged:")]
    for server in servers[:MAX_SHOWN]:
        lines.append(f'- "{escape(record_name(server))}"')
        lines.extend(f"    {escape(line)[:MAX_LINE]}" for line in launch_lines(server))
    if len(servers) > MAX_SHOWN:
        lines.append(f"... and {len(servers) - MAX_SHOWN} more: review them with "
                     f"'{command(project)}' instead")
    return "\n".join(lines)


#: The form: one yes/no field (named like the approval form's, so its answers read the same).
SCHEMA = {"type": "object", "required": ["approve"], "properties": {"approve": {
    "type": "boolean", "title": "Trust these servers", "default": False,
    "description": "Yes to let lemon start them in this project."}}}


async def ask(session: Any, servers: Sequence[Any], project: str, related: Any,
              wait_s: float) -> bool:
    """Ask through ``elicitation/create``; True only for an explicit yes in time."""
    import anyio

    result = None
    with anyio.move_on_after(wait_s):
        try:
            result = await session.elicit_form(message(servers, project), SCHEMA, related)
        except Exception:  # noqa: BLE001 - an error answer, a closed connection: refused
            return False
    if result is None or result.action != "accept":
        return False
    return (result.content or {}).get("approve") is True


def input_required(servers: Sequence[Any], project: str, state: str) -> Any:
    """The 2026-07-28 round asking the same form."""
    import mcp_types as types

    from lemon_core.mcp.gateway.rounds import KEY

    form = types.ElicitRequestFormParams(message=message(servers, project),
                                         requested_schema=SCHEMA)
    return types.InputRequiredResult(input_requests={KEY: types.ElicitRequest(params=form)},
                                     request_state=state)


def note(servers: Sequence[Any], project: str) -> str:
    """The gateway's one line on stderr."""
    return (f"{len(servers)} MCP server(s) of this project not trusted, not started "
            f"({_names(servers)}); review them and run '{command(project)}'")


def refused(servers: Sequence[Any], project: str, *, asked: bool) -> str:
    what = ("the user did not trust them" if asked else
            "this client cannot ask the user (it did not advertise MCP elicitation)")
    return (f"{len(servers)} MCP server(s) of this project ({_names(servers)}) stay untrusted: "
            f"{what}. The user can review them and run '{command(project)}' in a terminal; "
            "then list the tools again.")


__all__ = ["MAX_LINE", "MAX_SHOWN", "SCHEMA", "TOOL", "ask", "command", "description",
           "input_required", "message", "note", "refused", "tool"]
