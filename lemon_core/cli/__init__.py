"""The ``lemon`` command: a thin Typer layer over the library.

Each command group is one module with its own ``Typer()``; heavy libraries (yaml, strictyaml,
pluggy, dulwich, mcp) are imported inside command bodies so ``lemon --help`` stays fast
(``tests/cli/test_startup.py`` guards it).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import typer

from lemon_core.cli import blueprint as blueprint_cli
from lemon_core.cli import mcp as mcp_cli
from lemon_core.cli import (  # noqa: F401  (each registers its commands on its group's app)
    mcp_oauth,  # ``lemon mcp login/logout``
    mcp_runtime,  # ``lemon mcp tools/status/call``
    mcp_serve,  # ``lemon mcp serve``
    mcp_test,  # ``lemon mcp test``
    mcp_trust,  # ``lemon mcp trust/untrust``
    plugin_commands,
    skill,
    skill_app,
    skill_audit,
    skill_curator,
    skill_discover,
    skill_draft,
    skill_install,
    skill_manage,
    skill_new,
    skill_search,
    skill_serve,
    skill_update,
)
from lemon_core.cli import plugins as plugins_cli
from lemon_core.cli.dispatch import app_for

app = typer.Typer(
    name="lemon",
    help="Manage AI coding agents' skills (SKILL.md) and MCP servers.",
    no_args_is_help=True,  # ``lemon`` alone prints its help (on stderr, exit 2, as Click does)
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    add_completion=False,  # lemon's own --show-completion SHELL / --install-completion below
    context_settings={"help_option_names": ["-h", "--help"]},  # every subcommand inherits it
)
app.add_typer(skill_app.app, name="skill", short_help="Discover, check and manage skills.")
app.add_typer(mcp_cli.app, name="mcp", short_help="Manage MCP servers.")
app.add_typer(plugins_cli.app, name="plugins", short_help="Inspect lemon's plugins.")
app.add_typer(blueprint_cli.app, name="blueprint",
              short_help="Preview and apply blueprint bundles of skills and servers.")

#: The shells Typer's completion scripts support.
SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")


def _print_version(value: bool) -> None:
    if value:
        from lemon_core import __version__
        from lemon_core.cli.output import say

        say(f"lemon {__version__}")
        raise typer.Exit()


def _show_completion(ctx: typer.Context, param: Any, value: str | None) -> None:
    if value is None or ctx.resilient_parsing:
        return
    if value not in SHELLS:
        raise typer.BadParameter(f"SHELL is one of {', '.join(SHELLS)}", ctx=ctx, param=param)
    from typer import completion

    completion.show_callback(ctx, param, value)  # prints Typer's script for it and exits 0


def _install_completion(ctx: typer.Context, param: Any, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        from typer import completion

        completion.install_callback(ctx, param, value)  # detects the shell; exits 0


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", "-V", is_eager=True,
                                 callback=_print_version, help="Print lemon's version and exit."),
    show_completion: str | None = typer.Option(
        None, "--show-completion", metavar="SHELL", is_eager=True, expose_value=False,
        callback=_show_completion,
        help="Print the completion script for SHELL (bash, zsh, fish, powershell), to source "
             "or to save where the shell loads completions."),
    install_completion: bool = typer.Option(
        False, "--install-completion", is_eager=True, expose_value=False,
        callback=_install_completion,
        help="Install completion for the current shell (a line in its start-up file, e.g. "
             "~/.bashrc; restart the shell)."),
) -> None:
    pass


# ``_LEMON_COMPLETE=complete_bash lemon`` (what the scripts run) answers with Typer's
# completion classes, which match the scripts above.
typer.completion.completion_init()


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: every error is one line on stderr with its exit code.

    Invalid arguments exit 2 (``lemon: No such option: --bogus (see 'lemon skill list
    --help')``); a :class:`~lemon_core.errors.LemonError` exits with its own code (1 for a
    failed operation). A group run without a command still prints its help.
    """
    from lemon_core.errors import LemonError

    usage_error, click_error, no_args_error = _click_errors()

    _tolerant_stdout()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if plugin_commands.wanted(app, args):  # a plugin's command (``lemon skill hermes``)
            plugin_commands.add_commands(app)
        code = app_for(app, args)(args=args, prog_name="lemon", standalone_mode=False)
    except no_args_error as exc:
        exc.show()  # the group's help, as Click prints it
        sys.exit(2)
    except usage_error as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "lemon"
        _fail(f"{exc.format_message().strip().rstrip('.')} (see '{where} --help')", 2)
    except click_error as exc:
        _fail(exc.format_message(), exc.exit_code)
    except (typer.Abort, KeyboardInterrupt, EOFError):
        _fail("aborted", 1)
    except BrokenPipeError:  # the reader went away (``lemon skill list | head``)
        sys.exit(1)
    except (LemonError, OSError) as exc:
        if os.environ.get("LEMON_DEBUG"):
            raise
        if isinstance(exc, LemonError):
            from lemon_core.cli.voice import said

            _fail(said(exc), exc.exit_code)
        if exc.filename is None and _cwd_is_gone():
            from lemon_core.context import CWD_GONE

            _fail(CWD_GONE, 1)
        where = f"{exc.filename}: " if exc.filename is not None else ""
        _fail(f"{where}{exc.strerror or exc}", 1)  # an I/O failure no library call expected
    if isinstance(code, int) and code:  # ``typer.Exit(1)`` or ``ctx.exit(1)``
        sys.exit(code)


def _click_errors() -> tuple[Any, Any, Any]:
    """Click's ``UsageError``, ``ClickException`` and ``NoArgsIsHelpError`` classes as Typer
    raises them (Typer 0.28 vendors its own copy of Click; older Typer uses Click itself)."""
    mro = typer.BadParameter.__mro__
    usage = next(c for c in mro if c.__name__ == "UsageError")
    base = next(c for c in mro if c.__name__ == "ClickException")
    no_args = getattr(sys.modules[usage.__module__], "NoArgsIsHelpError", None)

    class _Never(Exception):
        """Raised by nothing (Click before 8.2 has no NoArgsIsHelpError)."""

    return usage, base, no_args or _Never


def _cwd_is_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _fail(message: str, code: int) -> NoReturn:
    """One escaped line on stderr (``lemon: MESSAGE``), then exit ``code``."""
    from lemon_core.cli.output import fail

    fail(message, code)


def _tolerant_stdout() -> None:
    """Let stdout print any text: a path with undecodable bytes (held as lone surrogates) or
    a character the terminal's encoding lacks is written as a backslash escape (as stderr does
    by default) instead of failing the command. Inside a JSON string that escape is valid."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # pragma: no cover - a closed or exotic stream
            pass


def console() -> None:
    """The ``lemon`` console script: :func:`main` run as a short-lived process
    (:mod:`lemon_core.cli.process`: its exit code, its output flushed)."""
    from lemon_core.cli.process import run_process

    run_process(main)


__all__ = ["app", "console", "main"]
