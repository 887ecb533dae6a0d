"""``lemon skill audit PATH|KEY… [--json]``: run the auditors over skill folders.

An argument naming an existing folder (or a ``SKILL.md`` file) is audited as that folder;
anything else is a skill key looked up as ``lemon skill list`` finds it. Exit 0 when every
verdict is ``pass``, 1 when any is ``warn`` or ``block``, 2 for an argument that is neither.
The audit never follows a link out of the folder and never runs anything in it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option, quiet_option
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()
QUIET = quiet_option()
TARGETS = typer.Argument(..., metavar="PATH|KEY...",
                         help="Skill folders, SKILL.md files or skill keys.")


def _target(arg: str, ctx: Any, listing: Any) -> tuple[Path, str | None]:
    """The folder ``arg`` names and the key to report it under."""
    from lemon_core.errors import UsageError

    path = Path(arg)
    if not path.is_absolute():
        path = Path(ctx.cwd) / path
    if path.is_dir():
        return path, None
    if path.name == "SKILL.md" and path.is_file():
        return path.parent, None
    if path.exists():
        raise UsageError(f"{arg} is neither a skill folder nor a SKILL.md file; pass the "
                         "skill's folder")
    if "/" not in arg and "\\" not in arg and listing is not None:
        item = listing.get(arg)
        if item is not None:
            return Path(item.entry.dir), item.entry.key
        failed = listing.get_invalid(arg)
        if failed is not None:
            return Path(failed.dir), failed.key
    raise UsageError(f"{arg} is not a folder, and no skill has that key; pass a skill folder "
                     "or a key from 'lemon skill list'")


def _audit_all(folders: list[tuple[Path, str | None]], ctx: Any, auditors: Any,
               as_json: bool, quiet: bool) -> list[Any]:
    """Each folder's report, in order; several show progress (a bar on a terminal, ``lemon:
    checked NAME (VERDICT)`` on stderr otherwise) unless ``--json`` or ``--quiet``."""
    from lemon_core.audit.host import audit_folder
    from lemon_core.cli.report import bar_wanted, checked, lines_wanted

    bar = None
    if len(folders) > 1 and bar_wanted(as_json, quiet):
        from lemon_core.cli.skill_install import _Progress

        bar = _Progress()
    lines = lines_wanted(as_json, quiet)
    reports = []
    try:
        for done, (folder, key) in enumerate(folders):
            name = key or folder.name
            if bar is not None:
                bar(done, len(folders), f"auditing {name}")
            report = audit_folder(folder, ctx, key=key, auditors=auditors)
            reports.append(report)
            if lines:
                checked(name, report.verdict)
    finally:
        if bar is not None:
            bar.stop()
    return reports


@app.command("audit", short_help="Audit skills for unsafe content (exit 1 on warn/block).")
def audit_command(
    targets: list[str] = TARGETS,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Run every registered auditor over each skill and print its findings, grouped by file,
    and its verdict (pass, warn or block). Exit 0 when all pass, 1 when any warns or blocks,
    2 for an argument that is neither a folder nor a skill key."""
    from lemon_core.audit.render import report_json, report_lines
    from lemon_core.cli.output import Escaped, emit_json, say
    from lemon_core.context import LemonContext
    from lemon_core.plugins import load_plugins

    ctx = LemonContext.from_environment(cwd)
    listing = None
    if any(not (Path(ctx.cwd) / t).exists() for t in targets):
        from lemon_core.skills.api import list_skills

        listing = list_skills(ctx, persistent=True)
    folders = [_target(t, ctx, listing) for t in targets]  # every argument checked first
    auditors = load_plugins(ctx, needs=("lemon.auditors",)).auditors()
    reports = _audit_all(folders, ctx, auditors, as_json, quiet)
    if as_json:
        emit_json({"results": [report_json(r) for r in reports]})
    else:
        for report in reports:
            say(*(Escaped(line) for line in report_lines(report)))
    if any(r.verdict != "pass" for r in reports):
        raise typer.Exit(1)
