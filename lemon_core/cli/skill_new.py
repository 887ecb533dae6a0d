"""``lemon skill new NAME [--local | --path DIR]``: start a skill from a SKILL.md that passes
``lemon skill lint --standard``; exit 1 when the folder exists (nothing touched), 2 for an
invalid name (the rule is printed)."""

from __future__ import annotations

from pathlib import Path

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()
PATH = typer.Option(None, "--path", metavar="DIR", help="Create it in DIR (DIR/NAME) instead, "
                    "e.g. a repository of skills.")


@app.command("new", short_help="Create a new skill folder with a SKILL.md to fill in.")
def new_command(
    name: str = typer.Argument(..., metavar="NAME", help="The skill's name: a-z, 0-9 and "
                               "single inner hyphens, at most 64 (also its folder's name)."),
    local: bool = typer.Option(False, "--local", help="Create it in the project "
                               "(.lemon/skill/NAME), not in lemon's global skills folder."),
    path: Path | None = PATH,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Create NAME/SKILL.md (name, a placeholder description to replace, an outline of the
    instructions) in lemon's global skills folder, the project's with --local, or DIR with
    --path. An existing folder is never touched."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.skills.scaffold import new_skill

    if local and path is not None:
        raise typer.BadParameter("use --local or --path, not both", param_hint="'--path'")
    folder = new_skill(name, cwd=cwd, local=local, path=path)
    if as_json:
        emit_json({"name": name, "path": str(folder), "skill_md": str(folder / "SKILL.md")})
        return
    say(f"Created {folder / 'SKILL.md'}",
        "Next: replace its description and instructions, then check it with "
        f"'lemon skill lint --standard {folder}'.")
