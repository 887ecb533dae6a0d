"""``lemon skill hermes``: browse the official Hermes catalog (the ``hermes`` source)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()


@app.command("hermes", short_help="Browse the Hermes skills catalog.")
def hermes_command(
    query: str | None = typer.Argument(
        None, metavar="QUERY",
        help="Only skills whose key, category (or, with --details, name or description) "
             "holds this text."),
    category: str | None = typer.Option(
        None, "--category", metavar="CATEGORY", help="Only this category (e.g. research)."),
    collection: str | None = typer.Option(
        None, "--collection", metavar="NAME", help="bundled, optional or all (default: all)."),
    details: bool = typer.Option(
        False, "--details",
        help="Read each listed skill's SKILL.md for its name and description (one download "
             "each)."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """List the skills of the Hermes Agent catalog, by collection and category; install one
    with 'lemon skill install hermes:<collection>/<category>/<skill>'. Without a QUERY or
    --category, the categories are listed with their number of skills."""
    from lemon_core.cli.output import emit_json, one_line, say, table
    from lemon_core.context import LemonContext
    from lemon_core.install.remote import browse

    ctx = LemonContext.from_environment(cwd)
    rows = browse("hermes", ctx, query=query, category=category, collection=collection,
                  details=details)
    if as_json:
        emit_json({"skills": [dict(row) for row in rows], "count": len(rows)})
        return
    if not rows:
        say("No Hermes skills match.")
        return
    if query is None and category is None and not details:
        counts = Counter((row["collection"], row["category"]) for row in rows)
        say(table([[coll, cat, str(n)] for (coll, cat), n in sorted(counts.items())],
                  ["COLLECTION", "CATEGORY", "SKILLS"]))
        say(f"{len(rows)} skills in {len(counts)} categories; list one with --category "
            "CATEGORY, or search with a QUERY.")
        return
    headers = ["ID", "CATEGORY", "DESCRIPTION"] if details else ["ID", "CATEGORY"]
    say(table([[row["id"], row["category"], one_line(row["description"], 60)][:len(headers)]
               for row in rows], headers))
    say(f"{len(rows)} skills; install one with 'lemon skill install ID'.")
