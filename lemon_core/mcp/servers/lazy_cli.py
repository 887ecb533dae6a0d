"""The ``lazy-skills-mcp`` console script: a drop-in for jonatsu/lazy-skills-mcp.

Its interface contract, to the letter: ``--skills-dir DIR`` and ``--skip-installed-in DIR``
(repeatable), ``--print-skills-dir``, ``--version``, ``LAZY_SKILLS_MCP_SKILLS_DIR`` and the
default folders (:mod:`.lazy_sources`), the layout, validity, duplicate and skip rules
(:mod:`.lazy_catalog`), exit status 1 with a message on stderr naming the paths when nothing
can be served, every diagnostic on stderr (stdout carries the protocol). The first scan runs
in a child process while the SDK imports (:mod:`.lazy_prescan`; the cached scan of
:mod:`.lazy_cache` when nothing changed); ``initialize`` waits only for its verdict, the tool
calls for the whole scan. ``--print-skills-dir`` and ``--version`` import neither.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

from lemon_core.text import escape

PROG = "lazy-skills-mcp"
#: The lazy-skills-mcp release whose interface this implements.
COMPATIBLE_WITH = "0.2.0"


def _version() -> str:
    from lemon_core import __version__

    return f"{PROG} {COMPATIBLE_WITH} (lemon-core {__version__})"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Serve Agent Skills on demand as MCP tools (find_skills, load_skill) over "
                    "stdio.")
    p.add_argument("--skills-dir", action="append", default=[], metavar="DIR",
                   help="A folder to read skills from, flat or grouped. Repeat it to read "
                        "several, in priority order. Default: the LAZY_SKILLS_MCP_SKILLS_DIR "
                        "list, then $XDG_DATA_HOME/lazy-skills-mcp/skills, else "
                        "~/.local/share/lazy-skills-mcp/skills")
    p.add_argument("--skip-installed-in", action="append", default=[], metavar="DIR",
                   help="A folder the agent loads skills from natively; skills installed "
                        "there are not served. Repeatable. Default: none.")
    p.add_argument("--version", action="version", version=_version())
    p.add_argument("--print-skills-dir", action="store_true",
                   help="Print the resolved skill sources, one per line, and exit, without "
                        "checking that they exist and without starting the server.")
    return p


def log(message: str) -> None:
    """One diagnostic line on stderr, escaped (catalog data is untrusted)."""
    sys.stderr.write(f"{PROG}: {escape(' '.join(message.split()))}\n")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    from lemon_core.mcp.servers.lazy_sources import resolve_skip_dirs, resolve_sources

    args = parser().parse_args(argv)
    env = os.environ if env is None else env
    sources = resolve_sources(args.skills_dir, env)
    if args.print_skills_dir:
        for source in sources:
            sys.stdout.write(source + "\n")
        return 0
    skip_dirs = resolve_skip_dirs(args.skip_installed_in, env)

    from lemon_core.mcp.servers.lazy_prescan import scan_aside
    from lemon_core.mcp.servers.sdk import McpSdkMissing, require_server_sdk

    prescan = scan_aside(sources, skip_dirs)  # in a child process while the SDK imports
    try:
        require_server_sdk()
        sdk_problem = None
    except McpSdkMissing as exc:
        sdk_problem = str(exc)
    head = prescan.head()  # whether the server can start: all initialize has to wait for
    for message in head.warnings:
        log(f"warning: {message}")
    problem = head.problem or sdk_problem
    if problem is not None:
        log(problem)
        return 1
    from lemon_core import __version__
    from lemon_core.mcp.servers.app import build_server, run_stdio
    from lemon_core.mcp.servers.backend import Deferred

    def load() -> object:
        from lemon_core.mcp.servers.lazy_backend import LazyBackend

        return LazyBackend(sources, skip_dirs, first=prescan.scan(), logged=head.warnings,
                           log=lambda message: log(f"warning: {message}"))

    # the whole scan is read and indexed while initialize is answered; calls wait for it
    backend = Deferred(load, start=False)
    server = build_server(backend, name=PROG, version=__version__)
    try:
        run_stdio(server)
    except KeyboardInterrupt:
        return 0
    finally:
        backend.close()
    return 0


def console() -> None:
    """The console-script entry point."""
    sys.exit(main())


__all__ = ["console", "main", "parser"]
