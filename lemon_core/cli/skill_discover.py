"""``lemon skill index`` (publish a well-known index) and ``lemon skill discover`` (one ranked
search across the sources that can search)."""

from __future__ import annotations

from pathlib import Path

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()


@app.command("index", short_help="Publish a folder of skills as a well-known index.")
def index_command(
    folder: Path = typer.Argument(..., metavar="DIR",
                                  help="A skill folder, or a folder of skill folders."),
    out: Path = typer.Option(..., "--out", metavar="SITE",
                             help="The folder to write the site into (served as is)."),
    as_json: bool = JSON,
) -> None:
    """Write DIR's skills below SITE as /.well-known/agent-skills/ (v0.2, with sha256
    digests) and /.well-known/skills/ (v0.1, for the skills CLI), ready for any static web
    server or CDN; install one with 'lemon skill install well-known:https://HOST#NAME'."""
    from lemon_core.cli.output import emit_json, one_line, say, table
    from lemon_core.skills.publish import publish_index

    report = publish_index(folder, out)
    if as_json:
        emit_json(report.to_json())
        return
    say(table([[s.name, s.kind, s.digest[:19] + "…", one_line(s.description, 50)]
               for s in report.skills], ["NAME", "TYPE", "DIGEST", "DESCRIPTION"]))
    say(f"Published {len(report.skills)} skill{'s' if len(report.skills) != 1 else ''} into "
        f"{report.out} ({len(report.written)} files); serve that folder as the site's root.")


@app.command("discover", short_help="Search every source that can search.")
def discover_command(
    query: str = typer.Argument(..., metavar="QUERY",
                                help="What you want to do, in words ('' lists all a "
                                     "well-known site publishes)."),
    source: str | None = typer.Option(None, "--source", metavar="SOURCE",
                                      help="Ask only this source (registry, hermes, "
                                           "well-known) or this site (well-known:URL)."),
    max_results: int = typer.Option(20, "--max", metavar="N", min=1, max=1000,
                                    help="Show at most N skills (default 20)."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """One ranked search across the registry, the Hermes catalog and the well-known sites
    named with --source or in LEMON_WELL_KNOWN; each hit with the identifier that installs
    it. A source that cannot be asked is a warning; the others still answer."""
    from lemon_core.cli.output import emit_json, one_line, say, table, warn
    from lemon_core.context import LemonContext
    from lemon_core.install.discover import discover

    found = discover(query, LemonContext.from_environment(cwd), source=source,
                     limit=max_results)
    if as_json:
        emit_json(found.to_json())
        return
    if found.hits:
        say(table([[h.identifier, h.source, f"{h.score:.2f}", one_line(h.description, 50)]
                   for h in found.hits], ["ID", "SOURCE", "SCORE", "DESCRIPTION"]))
        say("Install one with 'lemon skill install ID'.")
    else:
        say("No skill matches.")
    for error in found.errors:  # "<source>: <message>", the source named once
        text = (error.message if error.message.startswith(error.source + ":")
                else f"{error.source}: {error.message}")
        warn(f"discover: {one_line(text, 200)}")



@app.command("browse", short_help="The skills by category; what the not-ready ones lack.")
def browse_command(
    category: str | None = typer.Option(None, "--category", metavar="C",
                                        help="Only this category (exact)."),
    not_ready: bool = typer.Option(False, "--not-ready",
                                   help="Only the skills that are not ready, with what each "
                                        "lacks."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """The discovered skills grouped by category (metadata.lemon.category, the Hermes
    catalog's category, else the group folder), with counts; --category lists one,
    --not-ready the skills that are not ready and what each lacks."""
    from lemon_core.cli.output import emit_json, one_line, say, table
    from lemon_core.context import LemonContext
    from lemon_core.skills.browse import browse

    found = browse(LemonContext.from_environment(cwd), category=category, not_ready=not_ready,
                   persistent=True)
    if as_json:
        emit_json(found.to_json())
        return
    if category is None and not not_ready:
        if not found.categories:
            say("No skills found.")
            return
        say(table([[name, str(count)] for name, count in found.categories],
                  ["CATEGORY", "SKILLS"]))
        say(f"{len(found.skills)} skills in {len(found.categories)} categories; list one with "
            "--category C, or those not ready with --not-ready.")
        return
    if not found.skills:
        say("No skill is not ready." if not_ready else f"No skill in {category!r}.")
        return
    if not_ready:
        say(table([[s.key, s.state, s.category, one_line(", ".join(s.lacks) or "-", 60)]
                   for s in found.skills], ["KEY", "STATE", "CATEGORY", "LACKS"]))
    else:
        say(table([[s.key, s.state, one_line(s.description, 60)] for s in found.skills],
                  ["KEY", "STATE", "DESCRIPTION"]))
