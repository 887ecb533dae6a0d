"""The arguments and options several commands share, in one style.

Metavariables are upper case (``KEY``, ``NAME``, ``DIR``, ``PATH``), every parameter has a
help text, and a malformed value is refused while the command line is parsed: an invalid
argument (exit 2, one line), before any command runs. ``tests/cli/test_conventions.py`` walks
every command and holds them to this.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def _existing_dir(value: Path | None) -> Path | None:
    """``--cwd DIR``: the folder must exist, as the library requires of its ``cwd``."""
    if value is not None and not value.is_dir():
        what = "does not exist" if not value.exists() else "is not a folder"
        raise typer.BadParameter(f"the project directory {value} {what}; pass an existing "
                                 f"folder")
    return value


def skill_key(value: str) -> str:
    """``KEY``: a skill key is a folder name, so it is not empty, holds no path separator, no
    NUL and no control or bidi character, and is not ``.`` or ``..``."""
    from lemon_core.text import unsafe_reason

    problem: str | None = None
    if not value:
        problem = "is empty"
    elif value in (".", ".."):
        problem = f"is {value!r}"
    elif "\0" in value:
        problem = "contains a NUL character"
    elif "/" in value or "\\" in value:
        problem = "contains a path separator"
    else:
        unsafe = unsafe_reason(value)
        problem = unsafe[1] if unsafe is not None else None
    if problem is not None:
        # the value is shown escaped where every error is printed (``lemon_core.cli.main``)
        raise typer.BadParameter(f"'{value}' cannot be a skill key (a folder name): "
                                 f"it {problem}")
    return value


def cwd_option(help: str = "The project directory (default: the current directory).") -> Any:
    """``--cwd DIR``, checked to be an existing folder."""
    return typer.Option(None, "--cwd", metavar="DIR", help=help, callback=_existing_dir)


def key_argument(help: str = "The skill's key (its folder name; see 'lemon skill list').") -> Any:
    """``KEY``, a well-formed skill key."""
    return typer.Argument(..., metavar="KEY", help=help, callback=skill_key)


def json_option() -> Any:
    """``--json``: print the stable JSON document instead of text."""
    return typer.Option(False, "--json", help="Print JSON (stable keys; see the CLI reference).")


def quiet_option() -> Any:
    """``-q``/``--quiet``: no progress bar, no per-skill lines (:mod:`lemon_core.cli.report`)."""
    return typer.Option(False, "--quiet", "-q", help="Show no progress: no bar on a terminal, "
                        "no per-skill lines on stderr.")


__all__ = ["cwd_option", "json_option", "key_argument", "quiet_option", "skill_key"]
