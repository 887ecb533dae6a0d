"""``lemon mcp …``: manage lemon's own MCP files; a thin layer over :mod:`lemon_core.mcp`.

Commands edit ``<cwd>/.lemon/mcp.json`` (``--cwd PATH`` picks another project) or, with
``--global``, ``<agent dir>/mcp.json``. Output never shows commands, arguments, URLs or
credential values unless ``list --reveal`` asks for them (debugging only).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lemon_core.cli.params import cwd_option

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.mcp.manage import WriteResult

app = typer.Typer(
    help="Manage MCP servers: lemon's own mcp.json files and the effective set.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

_GLOBAL_HELP = "Use <agent dir>/mcp.json instead of the project's .lemon/mcp.json."
_CWD_HELP = "The project directory (default: the current directory)."
CWD = cwd_option(_CWD_HELP)
_REVEAL_WARNING = (
    "lemon: warning: --reveal prints commands, URLs and credential values (debugging only); "
    "do not share this output"
)


def _context(cwd: Path | None) -> LemonContext:
    from lemon_core.context import LemonContext
    from lemon_core.errors import UsageError

    if cwd is not None and not cwd.is_dir():
        raise UsageError(f"--cwd {cwd} is not a directory")
    return LemonContext.from_environment(cwd=cwd)


def _scope(global_: bool) -> str:
    return "global" if global_ else "project"


def _note(message: str) -> None:
    from lemon_core.cli.output import warn

    warn(message, label="note")


def _report(result: WriteResult, as_json: bool, text: str) -> None:
    from lemon_core.cli.output import emit_json, say, warn

    if as_json:
        emit_json(
            {
                "action": result.action,
                "name": result.name,
                "transport": result.transport,
                "scope": result.scope,
                "file": str(result.path),
                "changed": result.changed,
                "notes": list(result.notes),
            }
        )
    else:
        say(text)
    for note in result.notes:
        warn(note)


@app.command("add", short_help="Add a named server.")
def add(
    name: str = typer.Argument(..., metavar="NAME", help="The server name (case-sensitive)."),
    args: list[str] | None = typer.Argument(
        None, metavar="[-- ARGS...]", help="The stdio command's arguments, after --."
    ),
    stdio: str | None = typer.Option(None, "--stdio", metavar="CMD", help="Run CMD over stdio."),
    http: str | None = typer.Option(None, "--http", metavar="URL", help="Streamable HTTP URL."),
    sse: str | None = typer.Option(None, "--sse", metavar="URL", help="Legacy HTTP+SSE URL."),
    env: list[str] | None = typer.Option(
        None, "--env", metavar="KEY=VALUE", help="Environment variable (stdio only; repeat)."
    ),
    header: list[str] | None = typer.Option(
        None, "--header", metavar="NAME=VALUE", help="HTTP header (http/sse only; repeat)."
    ),
    approval: str | None = typer.Option(
        None, "--approval", metavar="MODE",
        help="Approval for tool calls: always (default) or never."
    ),
    tool_approval: list[str] | None = typer.Option(
        None, "--tool-approval", metavar="TOOL=MODE",
        help="Per-tool approval, always or never (repeat)."
    ),
    replace: bool = typer.Option(False, "--replace", help="Replace an existing server of NAME."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Add a named server (refuses an existing name unless --replace)."""
    from lemon_core.errors import UsageError
    from lemon_core.mcp.manage import add_server
    from lemon_core.mcp.spec import ServerSpec, parse_assignments

    chosen = [(t, v) for t, v in (("stdio", stdio), ("http", http), ("sse", sse)) if v is not None]
    if len(chosen) != 1:
        raise UsageError("choose exactly one transport: --stdio CMD, --http URL or --sse URL")
    transport, target = chosen[0]
    spec = ServerSpec(
        name=name,
        transport=transport,  # type: ignore[arg-type]
        command=target if transport == "stdio" else None,
        url=None if transport == "stdio" else target,
        args=tuple(args or ()),
        env=parse_assignments(env or (), "--env"),
        headers=parse_assignments(header or (), "--header"),
        approval=approval,  # type: ignore[arg-type]
        tool_approvals=parse_assignments(tool_approval or (), "--tool-approval"),
    )
    ctx = _context(cwd)
    result = add_server(ctx, spec, scope=_scope(global_), replace=replace)  # type: ignore[arg-type]
    verb = "Replaced" if result.action == "replaced" else "Added"
    _report(result, as_json, f'{verb} {transport} server "{name}" in {result.path}')


@app.command("list", short_help="List servers (--all: the effective set).")
def list_cmd(
    all_: bool = typer.Option(False, "--all", help="Show the effective merged set, all sources."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    reveal: bool = typer.Option(
        False, "--reveal", help="DEBUGGING: also print commands, URLs and secret values."
    ),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List one lemon file's servers, or with --all the effective set (redacted)."""
    from lemon_core.cli import mcp_render
    from lemon_core.cli.output import emit_json, say
    from lemon_core.mcp import views

    ctx = _context(cwd)
    if reveal:
        say(_REVEAL_WARNING, err=True)
    from lemon_core.mcp.lenient import problems

    if all_:
        from lemon_core.mcp.effective import effective_servers
        from lemon_core.mcp.trust.identity import needs_trust
        from lemon_core.mcp.trust.policy import StoreTrust

        effective = effective_servers(ctx, scope=_scope(global_))  # type: ignore[arg-type]
        policy = StoreTrust(ctx)
        data = views.effective_view(
            effective, reveal=reveal,
            trusted=lambda server: not needs_trust(server) or policy(ctx.cwd, server))
        if policy.problem is not None:
            _note(policy.problem)
        data["unread_user_files"] = _unread(ctx)
        text = None if as_json else mcp_render.effective_text(data, reveal=reveal)
        failed = problems([e for e in effective.errors if e.provider in ("lemon", "env")])
    else:
        from lemon_core.mcp.config import McpFile
        from lemon_core.mcp.lenient import read_lenient

        # The same reading as the effective set: the same file gets the same verdict.
        lenient = read_lenient(ctx, _scope(global_))  # type: ignore[arg-type]
        usable = lenient.file or McpFile(lenient.path, lenient.scope, exists=True, data={})
        data = views.file_view(usable, reveal=reveal, positions=lenient.positions,
                               errors=lenient.errors)  # fmt: skip
        text = None if as_json else mcp_render.file_text(data, reveal=reveal)
        failed = problems(lenient.errors)
    if text is None:
        emit_json(data)
    else:
        say(text)
    if failed is not None:  # what can be shown was shown; the broken file fails the command
        raise failed


def _unread(ctx: LemonContext) -> dict[str, object]:
    """``list --all``: the other tools' user-level files not read, and how to opt in."""
    from lemon_core.mcp.importing import opt_in_hint, unread_user_files

    unread = unread_user_files(ctx)
    return {"count": len(unread), "hint": opt_in_hint(unread) if unread else None,
            "files": [{"provider": u.provider, "file": u.file, "reason": u.reason}
                      for u in unread]}


def _state_command(name: str, enable: bool, global_: bool, cwd: Path | None, as_json: bool) -> None:
    from lemon_core.mcp.manage import disable_server, enable_server

    ctx = _context(cwd)
    action = enable_server if enable else disable_server
    result = action(ctx, name, scope=_scope(global_))  # type: ignore[arg-type]
    word = "enabled" if enable else "disabled"
    listed = "enabled_servers" if enable else "disabled_servers"
    if result.changed:
        text = f'{word.capitalize()} "{name}" in {result.path} ({listed})'
    else:
        text = f'"{name}" was already {word} in {result.path}'
    _report(result, as_json, text)
    _explain(ctx, name, want=enable)


def _explain(ctx: LemonContext, name: str, want: bool | None) -> None:
    """Notes (stderr) when the effective set here (the project of ``ctx.cwd``, whichever file
    was edited) does not match what the user just asked for."""
    try:
        from lemon_core.mcp.effective import effective_servers

        effective = effective_servers(ctx, scope="project")
    except Exception:  # noqa: BLE001 (a note is best effort; the edit already succeeded)
        return
    server = effective.get(name)
    if want is None:
        if server is not None:
            src = server.server.source
            _note(f'a server named "{name}" is still provided by {src.provider}:{src.scope}')
        return
    if server is None:
        _note(f'no server named "{name}" is configured or imported here yet; the setting applies '
              f"once one is")  # fmt: skip
    elif server.enabled != want:
        why = {
            "off": 'MCP is turned off ("enabled": false or LEMON_MCP_DISABLED)',
            "project": "the project file's enable/disable lists override the global file's",
            "unreadable": "a lemon MCP file cannot be used; see lemon mcp list --all",
        }.get(server.state, "another setting decides")
        _note(f'"{name}" stays {"disabled" if want else "enabled"} here: {why}')


@app.command("enable", short_help="Enable a server by name.")
def enable(
    name: str = typer.Argument(..., metavar="NAME", help="Any server name, imported ones too."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Enable NAME from every source (the file's enabled_servers allowlist)."""
    _state_command(name, True, global_, cwd, as_json)


@app.command("disable", short_help="Disable a server by name.")
def disable(
    name: str = typer.Argument(..., metavar="NAME", help="Any server name, imported ones too."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Disable NAME from every source (the file's disabled_servers denylist)."""
    _state_command(name, False, global_, cwd, as_json)


@app.command("remove", short_help="Remove a server from one file.")
def remove(
    name: str = typer.Argument(..., metavar="NAME", help="The exact name in the chosen file."),
    global_: bool = typer.Option(False, "--global", help=_GLOBAL_HELP),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Remove the server named exactly NAME from the chosen file (no other scope)."""
    from lemon_core.mcp.manage import remove_server

    ctx = _context(cwd)
    result = remove_server(ctx, name, scope=_scope(global_))  # type: ignore[arg-type]
    _report(result, as_json, f'Removed "{name}" from {result.path}')
    _explain(ctx, name, want=None)
