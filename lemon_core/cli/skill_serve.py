"""``lemon skill serve``: the lemon catalog of the working directory as an MCP server (stdio).

Registers on :data:`lemon_core.cli.skill_app.app`; a thin layer over
:mod:`lemon_core.mcp.servers` (``find_skills`` / ``load_skill`` as the lazy-skills-mcp
interface defines them, ``read_skill`` as the agent API's views, and the skills as SEP-2640
resources). stdout carries the protocol
only; anything else goes to stderr.
"""

from __future__ import annotations

from pathlib import Path

import typer

from lemon_core.cli.params import cwd_option
from lemon_core.cli.skill_app import app

SERVER_NAME = "lemon-skills"
_CWD = cwd_option("The project whose skills are served (default: the current directory).")
_READ_ONLY = typer.Option(False, "--read-only",
                          help="Offer no write tool (no skill_manage).")


@app.command("serve", short_help="Serve the skills to an agent over MCP (stdio).")
def serve(cwd: Path | None = _CWD, read_only: bool = _READ_ONLY) -> None:
    """Run an MCP server on stdin/stdout with the tools find_skills(query),
    load_skill(name), read_skill(key, view: full|summary|section|file) and
    skill_manage(action, key, ...) (not with --read-only) over this
    project's skills (every root, disabled skills left out), and
    the skills as resources (skill://<name>/SKILL.md, skill://index.json). Changes on disk are
    seen at the next call. Register it in an agent as the command 'lemon skill serve'."""
    from lemon_core import __version__
    from lemon_core.context import LemonContext
    from lemon_core.mcp.servers.backend import Deferred
    from lemon_core.mcp.servers.sdk import require_server_sdk

    ctx = LemonContext.from_environment(cwd=cwd)
    nudge = True
    if not read_only:
        from lemon_core.skills.manage_config import skills_config

        nudge = skills_config(ctx).learning_nudge

    def load() -> object:
        from lemon_core.mcp.servers.lemon_backend import LemonBackend

        return LemonBackend(ctx)

    require_server_sdk()  # without the SDK, say how to install it
    # The catalog loads once the handshake is done (or at the first request, which waits for
    # it): it is CPU work under the GIL, so loading it during the SDK import would only
    # delay the answer to initialize.
    backend = Deferred(load, start=False)
    from lemon_core.mcp.servers.app import build_server, run_stdio

    server = build_server(backend, name=SERVER_NAME, version=__version__, read_tool=True,
                          write_tool=not read_only, nudge=nudge)
    try:
        run_stdio(server)
    except KeyboardInterrupt:
        pass
    finally:
        backend.close()
