"""``lemon mcp trust`` and ``lemon mcp untrust``: the user's record of which servers of a project
lemon may start (:mod:`lemon_core.mcp.trust`). Registers on :data:`lemon_core.cli.mcp.app`.

``trust`` prints each untrusted server's full launch line (command and arguments, working
directory, URL; environment and header values never) and asks on the terminal; ``--approve``
answers yes for scripts, and without a terminal nothing is trusted unless it is given.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from lemon_core.cli.mcp import CWD, _context, app

_NAMES = typer.Argument(None, metavar="[NAME...]",
                        help="Server names (default: every project server not trusted yet).")


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


@app.command("trust", short_help="Review and trust the project's MCP servers.")
def trust(
    names: list[str] | None = _NAMES,
    all_: bool = typer.Option(False, "--all", help="Every project server not trusted yet."),
    approve: bool = typer.Option(False, "--approve", help="Trust without asking (scripts)."),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show what each untrusted server of this project would run or contact, then record it as
    trusted (in <agent dir>/mcp-trust.json, outside the project) once you say yes. A server
    whose launch line or secrets change later is untrusted again."""
    from lemon_core.cli.output import Escaped, ask, emit_json, say, warn
    from lemon_core.errors import LemonError, UsageError
    from lemon_core.mcp.trust.identity import launch_lines, record_name
    from lemon_core.mcp.trust.review import review
    from lemon_core.mcp.trust.store import trust_servers
    from lemon_core.text import escape

    if names and all_:
        raise UsageError("give server names or --all, not both")
    ctx = _context(cwd)
    found = review(ctx, names or ())
    for name in found.own:
        warn(f'"{name}" is one of your own servers (global, user or LEMON_MCP_SERVERS); it '
             "needs no trust", label="note")
    pending = found.pending
    if pending:  # on stderr: stdout stays one JSON document
        say(Escaped(f"Project {escape(found.project)}:"), err=True)
        for server in pending:
            say(Escaped(f'  "{escape(record_name(server))}"'), err=True)
            for line in launch_lines(server):
                say(Escaped(f"      {escape(line)}"), err=True)
    if pending and not approve:
        if not _interactive():
            raise LemonError(f"trusting {len(pending)} MCP server(s) needs your approval and "
                             "there is no terminal to ask on; review the lines above and pass "
                             "--approve")
        answer = ask(f"Trust these {len(pending)} server(s) and let lemon start them? [y/N]")
        if answer.lower() not in ("y", "yes"):
            raise LemonError("nothing was trusted")
    recorded = trust_servers(ctx, pending) if pending else []
    if as_json:
        emit_json({"project": found.project, "trusted": recorded,
                   "already": [record_name(s) for s in found.trusted],
                   "own": list(found.own)})
    elif recorded:
        say(f"Trusted {len(recorded)} MCP server(s) of {found.project}: {', '.join(recorded)}")
    else:
        say("Nothing to trust: every server of this project is trusted as it stands.")


@app.command("untrust", short_help="Forget the trust of the project's MCP servers.")
def untrust(
    names: list[str] | None = typer.Argument(None, metavar="[NAME...]",
                                             help="Server names (or --all)."),
    all_: bool = typer.Option(False, "--all", help="Every trusted server of this project."),
    cwd: Path | None = CWD,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Forget the trust records of NAME... (or --all) for this project: lemon no longer starts
    those servers until they are trusted again."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.errors import UsageError
    from lemon_core.mcp.trust.store import project_key, untrust_servers

    if bool(names) == all_:
        raise UsageError("give server names or --all")
    ctx = _context(cwd)
    gone = untrust_servers(ctx, None if all_ else names)
    if as_json:
        emit_json({"project": project_key(ctx.cwd), "untrusted": gone})
    elif gone:
        say(f"No longer trusted here: {', '.join(gone)}")
    else:
        say("No trust record to forget.")
