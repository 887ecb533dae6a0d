"""The ``lemon`` command: a thin Typer layer over the library.

Each command group is one module with its own ``Typer()``; heavy libraries (yaml, strictyaml,
pluggy, dulwich, mcp) are imported inside command bodies so ``lemon --help`` stays fast
(``tests/cli/test_startup.py`` guards it).
"""

from __future__ import annotations

import gc
import os
import sys

import typer

from lemon_core.cli import mcp as mcp_cli
from lemon_core.cli import plugins as plugins_cli
from lemon_core.cli import skill as skill_cli

app = typer.Typer(
    name="lemon",
    help="Manage AI coding agents' skills (SKILL.md) and MCP servers.",
    no_args_is_help=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(skill_cli.app, name="skill")
app.add_typer(mcp_cli.app, name="mcp")
app.add_typer(plugins_cli.app, name="plugins")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Click reports usage errors itself (exit 2); a
    :class:`~lemon_core.errors.LemonError` becomes one line on stderr and its exit code."""
    from lemon_core.errors import LemonError

    # A command is a short-lived process that builds many objects which all stay alive until it
    # exits; the cyclic collector would only walk them again and again (it doubled the time of
    # a 10,000-skill listing). Memory is returned when the process ends.
    gc.disable()
    try:
        app(args=argv, prog_name="lemon")
    except LemonError as exc:
        if os.environ.get("LEMON_DEBUG"):
            raise
        print(f"lemon: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)


def console() -> None:
    """The ``lemon`` console script: :func:`main`, then exit without tearing down.

    Freeing every object of a large listing one by one at interpreter exit costs more than
    parsing it back from the cache (40 ms for 10,000 skills); the process is ending, so its
    output is flushed and it leaves at once. Nothing lemon writes is pending at that point:
    every file write is already complete and synced.
    """
    code: int | str | None = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (``lemon skill list | head``)
        code = code or 1
    os._exit(code or 0)


__all__ = ["app", "console", "main"]
