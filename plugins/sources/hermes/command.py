"""``lemon skill hermes``: browse the Hermes Agent catalog, a command this plugin adds to the CLI.

Registered through the ``lemon.commands`` entry point ``hermes`` (qualified ``commands.hermes``)
with the ``lemon_register_commands`` hook, exactly as a third-party plugin adds a command: lemon
imports this module only when a run names ``lemon skill hermes`` (or lists the plugins), and
Typer only when the hook runs.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from lemon_core import hookimpl
from lemon_core.protocols import CliCommand, CommandKit


def browse(kit: CommandKit, query: str | None, category: str | None, collection: str | None,
           details: bool, cwd: Path | None, as_json: bool) -> None:
    """List the catalog's skills (or its categories), as ``lemon skill hermes`` prints them."""
    from . import HermesSource

    rows = HermesSource().catalog(kit.context(cwd), query=query, category=category,
                                  collection=collection, details=details)
    if as_json:
        kit.emit_json({"skills": [dict(row) for row in rows], "count": len(rows)})
        return
    if not rows:
        kit.say("No Hermes skills match.")
        return
    if query is None and category is None and not details:
        counts = Counter((row["collection"], row["category"]) for row in rows)
        kit.say(kit.table([[coll, cat, str(n)] for (coll, cat), n in sorted(counts.items())],
                          ["COLLECTION", "CATEGORY", "SKILLS"]))
        kit.say(f"{len(rows)} skills in {len(counts)} categories; list one with --category "
                "CATEGORY, or search with a QUERY.")
        return
    headers = ["ID", "CATEGORY", "DESCRIPTION"] if details else ["ID", "CATEGORY"]
    kit.say(kit.table([[row["id"], row["category"],
                        kit.one_line(row["description"], 60)][:len(headers)] for row in rows],
                      headers))
    kit.say(f"{len(rows)} skills; install one with 'lemon skill install ID'.")


def _command(kit: CommandKit) -> Any:
    import typer

    cwd_default = kit.cwd_option()
    json_default = kit.json_option()

    def hermes(
        query: str | None = typer.Argument(
            None, metavar="QUERY",
            help="Only skills whose key, category (or, with --details, name or description) "
                 "holds this text."),
        category: str | None = typer.Option(
            None, "--category", metavar="CATEGORY",
            help="Only this category (e.g. research)."),
        collection: str | None = typer.Option(
            None, "--collection", metavar="NAME",
            help="bundled, optional or all (default: all)."),
        details: bool = typer.Option(
            False, "--details",
            help="Read each listed skill's SKILL.md for its name and description (one "
                 "download each)."),
        cwd: Path | None = cwd_default,
        as_json: bool = json_default,
    ) -> None:
        """List the skills of the Hermes Agent catalog, by collection and category; install
        one with 'lemon skill install hermes:<collection>/<category>/<skill>'. Without a QUERY
        or --category, the categories are listed with their number of skills."""
        browse(kit, query, category, collection, details, cwd, as_json)

    return hermes


@hookimpl
def lemon_register_commands(register: Any, kit: CommandKit) -> None:
    register(CliCommand("hermes", _command(kit), group="skill",
                        short_help="Browse the Hermes skills catalog."))
