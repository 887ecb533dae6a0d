"""``lemon skill manage``: :func:`lemon_core.skills.manage.manage` from the command line (what
the ``skill_manage`` tool of ``lemon skill serve`` does for an agent).

Registers on :data:`lemon_core.cli.skill_app.app`. Under ``[skills] write_approval = true``
each mutating action asks on the terminal (``--approve`` answers yes in advance; without a
terminal and without it, the action is refused).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app

_CWD = cwd_option()
_JSON = json_option()


def _content(value: str | None) -> str | None:
    from lemon_core.errors import UsageError
    from lemon_core.fsio.read import FileProblem, decode_utf8, read_bytes

    if value is None:
        return None
    if value == "-":
        return sys.stdin.read()
    try:
        data = read_bytes(Path(value), missing_ok=False)
    except FileProblem as problem:
        raise UsageError(f"--content-file {value}: {problem.message}") from None
    return decode_utf8(data or b"")


@app.command("manage", short_help="Write a skill as an agent does (skill_manage).")
def manage_command(
    action: str = typer.Argument(..., metavar="ACTION",
                                 help="create, edit, patch, delete, write_file, remove_file, "
                                      "pin, unpin, archive, restore or report."),
    key: str = typer.Argument("", metavar="KEY", help="The skill's key (its folder name)."),
    global_: bool = typer.Option(False, "--global", help="The global scope (default: the "
                                 "project's)."),
    content_file: str | None = typer.Option(None, "--content-file", metavar="FILE",
                                            help="create/edit: the SKILL.md; write_file: the "
                                                 "file's text ('-': stdin)."),
    old: str | None = typer.Option(None, "--old", metavar="TEXT", help="patch: the exact text to replace."),
    new: str | None = typer.Option(None, "--new", metavar="TEXT", help="patch: the text to put instead."),
    path: str | None = typer.Option(None, "--path", metavar="REL", help="write_file/remove_file: a path "
                                    "under references/, templates/, scripts/ or assets/."),
    approve: bool = typer.Option(False, "--approve", help="Answer yes in advance when "
                                 "write_approval asks."),
    cwd: Path | None = _CWD,
    as_json: bool = _JSON,
) -> None:
    """Create, change, pin, archive or report a skill in lemon's own skills folder, every
    write linted and audited as an install is (a block refuses with the findings)."""
    from lemon_core.cli.output import ask, emit_json, say
    from lemon_core.skills.manage import describe, manage

    answer: Any = None
    if approve:
        def answer(request: Any) -> bool:
            return True
    elif sys.stdin.isatty() and sys.stderr.isatty():
        def answer(request: Any) -> bool:
            return ask(describe(request) + " [y/N]").lower() in ("y", "yes")
    result = manage(action, key, cwd=cwd, scope="global" if global_ else "project",
                    content=_content(content_file), old=old, new=new, path=path,
                    approve=answer)
    data = result.to_dict()
    if as_json:
        emit_json(data)
        return
    if action == "report":
        for row in result.rows:
            flags = [f for f in ("stale_candidate", "archive_candidate") if row.get(f)]
            say(f"{row['key']}  {row['lifecycle_state']}  {' '.join(flags)}".rstrip())
        return
    verdict = f" (audit: {result.verdict})" if result.verdict else ""
    say(f"{result.key}: {result.outcome}{verdict} in the {result.scope} scope")
