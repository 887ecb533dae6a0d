"""``lemon mcp tools``, ``lemon mcp status``, ``lemon mcp call``: the tool host
(:class:`lemon_core.mcp.runtime.host.McpHost`) for one project, from the command line.

Each command connects to the project's enabled servers (they may start programs), prints, and
closes. A server of the project's own files that the user has not trusted (``lemon mcp trust``)
is never started: one note on stderr names ``lemon mcp trust`` (JSON: an ``untrusted`` list).
Output never shows commands, URLs, headers or environment values, nor a transport's own error
text; a tool's own output is the server's.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.mcp import CWD, _context, app


def _host(cwd: Path | None) -> Any:
    from lemon_core.mcp.gateway.selfref import self_reason
    from lemon_core.mcp.runtime.host import McpHost

    # a registered 'lemon mcp serve' entry would list every tool a second time through it
    return McpHost(_context(cwd), skip=self_reason)


def _config_errors(host: Any, *, show: bool) -> Exception | None:
    """The effective set's source errors, which say why servers are missing (an unusable
    lemon file disables every server of its scope): each one on stderr when ``show``, and the
    error to exit 1 with when lemon's own configuration has one, as ``lemon mcp list`` does.
    """
    from lemon_core.cli.mcp_render import error_lines
    from lemon_core.cli.output import Escaped, warn
    from lemon_core.mcp.lenient import problems
    from lemon_core.mcp.views import errors_view

    if show:
        for line in error_lines(errors_view(host.config_errors)):
            warn(Escaped(line), label=None)
    return problems([e for e in host.config_errors if e.provider in ("lemon", "env")])


def _untrusted(host: Any, *, show: bool) -> list[str]:
    """The names of the servers left out as untrusted; one note on stderr when ``show``."""
    from lemon_core.cli.output import Escaped, warn
    from lemon_core.mcp.trust.identity import record_name
    from lemon_core.mcp.trust.policy import hint
    from lemon_core.text import escape

    names = [record_name(s) for s in host.untrusted]
    problem = getattr(host.trust, "problem", None)  # the store cannot be used: say why
    if show and names and problem:
        warn(problem, label="note")
    if show and names:
        count = f"{len(names)} MCP server" + ("s" if len(names) > 1 else "")
        warn(Escaped(f"{count} of this project not trusted, not started: "
                     f"{', '.join(escape(n) for n in names)}; {hint([])}"), label="note")
    return names


def _first_line(text: str | None) -> str:
    """The description's first line for a table, cut to 100 characters with "…"."""
    from lemon_core.cli.output import one_line

    lines = (text or "").strip().splitlines()
    if not lines:
        return ""
    first = one_line(lines[0], 100)
    more = any(line.strip() for line in lines[1:])  # the rest is cut too: say so
    return first if not more or first.endswith("…") else one_line(first, 99) + "…"


@app.command("tools", short_help="List the project's MCP tools with their model-facing names.")
def tools(
    name: str | None = typer.Argument(None, metavar="[NAME]", help="Only this server's tools."),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Connect to the enabled servers of the effective set and list their tools (and lemon's
    resource/prompt utilities where a server offers those) under the names to call them by.
    Servers that are down are skipped; see 'lemon mcp status'."""
    from lemon_core.cli.output import emit_json, say, table, warn
    from lemon_core.mcp.views import errors_view

    with _host(cwd) as host:
        found = [t for t in host.tools() if name is None or t.server == name]
        status = host.status()
    failed = _config_errors(host, show=not as_json)
    untrusted = _untrusted(host, show=True)
    if as_json:
        emit_json({"tools": [{"name": t.name, "server": t.server, "tool": t.raw,
                              "kind": t.kind, "approval": "always" if t.approval else "never",
                              "description": t.description, "input_schema": dict(t.input_schema)}
                             for t in found],
                   "errors": errors_view(host.config_errors), "untrusted": untrusted})
        if failed is not None:
            raise failed
        return
    for item in status:
        if item.last_error and (name is None or item.name == name):
            if item.error_kind == "skipped":  # not down: left out on purpose, say which
                warn(f'server "{item.name}" {item.last_error}')
            else:
                warn(f"skipped: {item.last_error}")
    if not found:
        say("No MCP tools." if name is None else f'No MCP tools from server "{name}".')
    else:
        say(table([(t.name, t.server, "always" if t.approval else "never",
                    _first_line(t.description)) for t in found],
                  ("NAME", "SERVER", "APPROVAL", "DESCRIPTION")))
    if failed is not None:
        raise failed


@app.command("status", short_help="Connect to the project's MCP servers and show their state.")
def status(
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Per enabled server: connected or not, tool/resource/prompt counts, capabilities and
    the last error (a fixed message that never repeats configuration values)."""
    from lemon_core.cli.output import emit_json, say, table
    from lemon_core.mcp.views import errors_view

    with _host(cwd) as host:
        items = host.status()
        disabled = host.disabled
    failed = _config_errors(host, show=not as_json)
    untrusted = _untrusted(host, show=True)
    if as_json:
        emit_json({"enabled": not disabled, **items.to_json(),
                   "errors": errors_view(host.config_errors), "untrusted": untrusted})
    elif not items:
        say("MCP is turned off (LEMON_MCP_DISABLED)." if disabled else
            "No trusted MCP servers to start (see the note above)." if untrusted else
            "No enabled MCP servers." + (" (See the errors above.)" if failed else ""))
    else:
        say(table([(s.name, s.transport, "yes" if s.connected else "no", s.tools, s.resources,
                    s.prompts, ",".join(s.capabilities), s.last_error or "")
                   for s in items],
                  ("SERVER", "TRANSPORT", "CONNECTED", "TOOLS", "RESOURCES", "PROMPTS",
                   "CAPABILITIES", "LAST ERROR")))
    if failed is not None:
        raise failed


def _arguments(text: str | None) -> dict[str, Any]:
    from lemon_core.errors import UsageError

    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise UsageError("--args must be a JSON object, e.g. --args '{\"path\": \"a\"}'") \
            from None
    if not isinstance(value, dict):
        raise UsageError("--args must be a JSON object, e.g. --args '{\"path\": \"a\"}'")
    return value


def _untrusted_call(host: Any, tool: str, exc: Exception, raw: str | None = None) -> Exception:
    """For an unknown tool while project servers are untrusted: the refusal naming
    ``lemon mcp trust`` (the tool may belong to one of them), else ``exc`` as it was."""
    from lemon_core.mcp.runtime.names import slug
    from lemon_core.mcp.trust.identity import record_name
    from lemon_core.mcp.trust.policy import UntrustedServerError, hint
    from lemon_core.text import escape

    names = [record_name(s) for s in host.untrusted]
    if not names:
        return exc
    mine = [n for n in names if tool.startswith(f"mcp_{slug(n, 16)}_") or tool == n]
    shown = ", ".join(escape(n) for n in (mine or names))
    return UntrustedServerError(
        f"no MCP tool named {escape(tool if raw is None else f'{tool} {raw}')!r} is "
        f"available: this project's server(s) {shown} "
        f"are not trusted, so lemon did not start them; {hint([escape(n) for n in mine])}")


def _terminal_approver(request: Any) -> bool:
    from lemon_core.cli.output import ask

    names = ", ".join(request.argument_names) or "none"
    answer = ask(f'Call {request.target} on server "{request.server}" (arguments: {names})? '
                 "[y/N]")
    return answer.lower() in ("y", "yes")


@app.command("call", short_help="Call one MCP tool (by its model-facing name, or SERVER TOOL).")
def call(
    tool: str = typer.Argument(..., metavar="TOOL|SERVER",
                               help="A name from 'lemon mcp tools', or a server's name."),
    raw: str | None = typer.Argument(None, metavar="[TOOL]",
                                     help="With SERVER: the tool's own name on that server."),
    args: str | None = typer.Option(None, "--args", metavar="JSON",
                                    help="The tool's arguments as a JSON object."),
    approve: bool = typer.Option(False, "--approve",
                                 help="Approve the call when its policy asks for approval."),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Call TOOL once: its model-facing name ('lemon mcp call mcp_calc_add_...') or its
    server and its own name ('lemon mcp call calc add'). A tool whose policy requires
    approval asks on the terminal, and without one is refused unless --approve is given. A
    call that times out is not retried (it may still have taken effect). Exit 0 on success,
    1 when the call or the tool failed."""
    from lemon_core.cli.output import emit_json, fail, say

    arguments = _arguments(args)
    if approve:
        def approver(request: Any) -> bool:  # the user approved up front
            return True
    elif sys.stdin.isatty() and sys.stderr.isatty():
        approver = _terminal_approver
    else:
        approver = None
    from lemon_core.cli.voice import said
    from lemon_core.errors import LemonError, NotFoundError

    with _host(cwd) as host:
        try:
            result = host.call(tool, arguments, approver=approver, tool=raw)
        except LemonError as exc:
            if isinstance(exc, NotFoundError):
                _config_errors(host, show=True)  # what may have left the tool out
                exc = _untrusted_call(host, tool, exc, raw)
            if as_json:
                kind = "approval" if type(exc).__name__ == "ApprovalRefused" else "not_found"
                kind = "untrusted" if type(exc).__name__ == "UntrustedServerError" else kind
                emit_json({"name": tool, "ok": False,
                           "error": {"kind": kind, "message": said(exc)}})
            raise exc from None
    if as_json:
        emit_json(result.to_json())
        if not result.ok or result.is_error:
            raise typer.Exit(1)
        return
    if not result.ok:
        fail(f"{result.name}: {result.error}", 1)
    for block in (result.result or {}).get("content", []) or [result.result]:
        if isinstance(block, dict) and block.get("type") == "text":
            say(block.get("text", ""))
        else:
            say(json.dumps(block, ensure_ascii=False))
    if result.is_error:
        raise typer.Exit(1)
