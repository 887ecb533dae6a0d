"""``lemon skill search``, ``lemon skill prompt`` and ``lemon skill read``: what agents see."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option, key_argument
from lemon_core.cli.skill_app import app

CWD = cwd_option()
JSON = json_option()
KEY = key_argument()


def _ctx(cwd: Path | None) -> Any:
    from lemon_core.context import LemonContext

    return LemonContext.from_environment(cwd)


def _plain(value: Any) -> Any:
    """A remote hit or error as JSON data, whatever record type its source returns."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return to_json()
    import attrs

    if attrs.has(type(value)):
        return attrs.asdict(value)
    return value if isinstance(value, (dict, list, str, int, float, bool, type(None))) \
        else str(value)


def _remote(query: str, ctx: Any, limit: int) -> dict[str, Any]:
    from lemon_core.errors import LemonError

    try:
        from lemon_core.install.remote import search_remote
    except ImportError:
        raise LemonError("remote search is not available in this lemon (no "
                         "lemon_core.install.remote); search the local skills without "
                         "--remote") from None
    found = search_remote(query, ctx, limit)
    return {"hits": [_plain(hit) for hit in found.hits],
            "errors": [_plain(error) for error in found.errors]}


@app.command("search", short_help="Find the skills that answer a request.")
def search_command(
    query: str = typer.Argument(..., metavar="QUERY", help="What you want to do, in words."),
    max_results: int = typer.Option(10, "--max", metavar="N", min=1, max=1000,
                                    help="Show at most N skills (default 10)."),
    remote: bool = typer.Option(False, "--remote",
                                help="Also search the sources' catalogs (network)."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Rank the discovered skills for QUERY (name and keywords above the description above
    the body; disabled, hidden and other-platform skills left out), best first."""
    from lemon_core.cli.output import emit_json, one_line, say, table
    from lemon_core.skills.agent import find_relevant

    ctx = _ctx(cwd)
    hits = find_relevant(query, ctx, max_results=max_results, persistent=True)
    found = None if not remote else _remote(query, ctx, max_results)
    if as_json:
        document: dict[str, Any] = {"skills": [
            {"key": h.key, "name": h.name, "description": h.description, "score": h.score}
            for h in hits]}
        if found is not None:
            document["remote"] = found
        emit_json(document)
        return
    if hits:
        say(table([[h.key, f"{h.score:.2f}", one_line(h.description, 70)] for h in hits],
                  ["KEY", "SCORE", "DESCRIPTION"]))
    else:
        say("No skill matches.")
    if found is not None:
        from lemon_core.cli.output import warn

        remote_hits = [h for h in found["hits"] if isinstance(h, dict)]
        say("", "Remote (install with 'lemon skill install ID'):")
        if remote_hits:
            say(table([[h.get("source", ""), h.get("identifier", ""),
                        one_line(str(h.get("description") or ""), 60)] for h in remote_hits],
                      ["SOURCE", "ID", "DESCRIPTION"]))
        else:
            say("No remote skill matches.")
        for error in found["errors"]:
            text = str(error)
            if isinstance(error, dict):  # "<source>: <message>", the source named once
                source, message = str(error.get("source")), str(error.get("message"))
                text = message if message.startswith(source + ":") else f"{source}: {message}"
            warn(f"remote search: {one_line(text, 200)}")


@app.command("prompt", short_help="Print the skills listing for a system prompt.")
def prompt_command(
    max_chars: int | None = typer.Option(None, "--max-chars", metavar="N", min=0,
                                            help="Keep the listing within N characters (an N "
                                                 "too small for any listing is an error)."),
    tools: str = typer.Option("lemon-serve", "--tools", metavar="SET",
                              help="The tools the listing names: lemon-serve (find_skills, "
                                   "load_skill, read_skill, as 'lemon skill serve' and 'lemon "
                                   "mcp serve --skills' offer), lazy (find_skills, load_skill, "
                                   "as lazy-skills-mcp) or library (find_relevant, "
                                   "read_skill: lemon's Python API)."),
    tool_names: str | None = typer.Option(None, "--tool-names", metavar="ROLE=NAME,...",
                                          help="Your harness' own names for the roles find, "
                                               "load and read, e.g. "
                                               "find=search_skills,load=open_skill; ROLE= "
                                               "drops a role."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Print the <available_skills> block an agent harness puts in its system prompt: every
    displayable skill's key and one-line description, by key (nothing when there is none),
    and one line telling the model which tools load and find skills: exactly those of the
    server given by --tools (and --tool-names), no other. A --max-chars too small for even a
    count of the skills prints nothing and exits 1, saying the smallest N that works."""
    from lemon_core.cli.output import emit_json, say_lines
    from lemon_core.errors import LemonError
    from lemon_core.search.prompt_tools import prompt_tools
    from lemon_core.skills.agent import prompt_view

    named = prompt_tools(tools, tool_names)
    listing = prompt_view(_ctx(cwd), max_chars=max_chars, persistent=True, tools=named)
    if as_json:
        data = {"prompt": listing.text, "shown": listing.shown, "omitted": listing.omitted}
        emit_json(data | {"needed": listing.needed} if listing.needed else data)
    elif listing.text:
        say_lines(listing.text.splitlines())
    if listing.needed:
        count = listing.omitted
        raise LemonError(f"--max-chars {max_chars} is too small to list any of the {count} "
                         f"skill{'s' if count != 1 else ''}: the smallest listing needs "
                         f"{listing.needed} characters; nothing printed (give --max-chars "
                         f"{listing.needed} or more)")


def _key_or_uri(value: str) -> str:
    """``KEY``, or a ``skill://<key>[/<relative path>]`` URI as agents are given them."""
    from lemon_core.cli.params import skill_key
    from lemon_core.errors import UsageError
    from lemon_core.search.uri import SCHEME, parse_skill_uri

    if not value.startswith(SCHEME):
        return skill_key(value)
    try:
        skill_key(parse_skill_uri(value)[0])
    except UsageError as exc:
        from lemon_core.cli.voice import said

        raise typer.BadParameter(said(exc)) from None
    return value


@app.command("read", short_help="Load a skill as an agent would (read_skill).")
def read_command(
    key: str = typer.Argument(..., metavar="KEY|URI", callback=_key_or_uri,
                              help="A skill key, or skill://<key>[/<relative path>]."),
    view: str = typer.Option("full", "--view", metavar="VIEW",
                             help="full (default), summary, section or file."),
    section: str | None = typer.Option(None, "--section", metavar="HEADING",
                                          help="The heading to show (section view)."),
    file: str | None = typer.Option(None, "--file", metavar="REL",
                                       help="A file of the skill, relative to its folder."),
    include_status: bool = typer.Option(False, "--include-status",
                                        help="Add the skill's readiness."),
    include_manifest: bool = typer.Option(False, "--include-manifest",
                                          help="Add the parsed manifest."),
    max_chars: int | None = typer.Option(None, "--max-chars", metavar="N", min=0,
                                            help="Cut the content to N characters."),
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Print one view of a skill: the whole SKILL.md, a summary, one section or one of its
    files (never anything outside the skill folder); its source and trust go to stderr."""
    from lemon_core.cli.output import emit_json, say, say_lines
    from lemon_core.errors import UsageError
    from lemon_core.search.uri import SCHEME, parse_skill_uri
    from lemon_core.skills.agent import read_skill

    if key.startswith(SCHEME):
        key, path = parse_skill_uri(key)
        if path is not None:
            if file is not None or view not in ("full", "file") or section is not None:
                raise UsageError("a skill:// URI with a path names one file: leave out "
                                 "--view, --section and --file")
            view, file = "file", path
    read = read_skill(key, _ctx(cwd), view=view, section=section, file=file,
                      include_status=include_status, include_manifest=include_manifest,
                      max_chars=max_chars, persistent=True, defanged=False,
                      reader="person")  # no agent's use: no load counted
    if as_json:  # exact, as every --json; the terminal output below is escaped
        emit_json(read.to_json())
        return
    say_lines(read.content.splitlines())
    for label, data in (("status", read.status), ("manifest", read.manifest)):
        if data is not None:
            say("", f"{label}:")
            say_lines(f"  {name}: {value}" for name, value in data.items()
                      if value not in (None, (), [], {}))
    trust = read.trust_level or "not installed by lemon"
    say(f"lemon: {read.key} ({read.view}, {read.size} bytes) from {read.source}; trust: "
        f"{trust}", err=True)
