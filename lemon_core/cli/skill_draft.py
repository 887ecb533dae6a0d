"""``lemon skill draft list|generate|review|publish|delete``: skills that are not yet offered
to agents, under ``drafts/`` of a scope (:mod:`lemon_core.drafts`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app as skill_app

app = typer.Typer(help="Draft skills: write, review, then publish through the audit.",
                  no_args_is_help=True, rich_markup_mode=None)
skill_app.add_typer(app, name="draft", short_help="Skills not yet offered to agents (list, "
                    "generate, review, publish, delete).")

CWD = cwd_option()
JSON = json_option()
LOCAL = typer.Option(False, "--local", help="The project's drafts (.lemon/drafts), not the "
                     "global ones.")
NAME = typer.Argument(..., metavar="NAME", help="The draft's (and the skill's) name.")


def _ctx(cwd: Path | None) -> Any:
    from lemon_core.skills.calls import call_context

    return call_context(None, cwd)


@app.command("list", short_help="List the drafts of the scope.")
def list_command(local: bool = LOCAL, cwd: Path | None = CWD, as_json: bool = JSON) -> None:
    """Every draft, its description, and whether a skill of that name exists."""
    import attrs

    from lemon_core.cli.output import emit_json, say, table
    from lemon_core.drafts import drafts_dir, list_drafts

    ctx = _ctx(cwd)
    drafts = list_drafts(ctx, local=local)
    if as_json:
        emit_json({"path": str(drafts_dir(ctx, local=local)),
                   "drafts": [attrs.asdict(d) for d in drafts]})
        return
    if not drafts:
        say(f"No drafts in {drafts_dir(ctx, local=local)}")
        return
    say(table([(d.name, "replaces a skill" if d.exists_as_skill else "new",
                (d.description or "")[:70]) for d in drafts], ["NAME", "PUBLISH", "DESCRIPTION"]))


@app.command("generate", short_help="Write a draft that passes lint --standard.")
def generate_command(
    name: str = NAME,
    description: str = typer.Option(..., "--description", metavar="TEXT",
                                    help="What the skill does and when to use it."),
    source: str | None = typer.Option(None, "--from", metavar="FILE|-",
                                      help="The body (instructions) from FILE, or - for stdin; "
                                      "default: an outline to fill in."),
    replace: bool = typer.Option(False, "--replace", help="Replace a draft of that name."),
    local: bool = LOCAL, cwd: Path | None = CWD, as_json: bool = JSON,
) -> None:
    """Write drafts/NAME/SKILL.md from NAME, --description and a body (for example lessons an
    agent wrote down); a draft that would fail 'lemon skill lint --standard' is not kept."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.drafts import MAX_BODY_BYTES, generate_draft
    from lemon_core.errors import UsageError
    from lemon_core.fsio import FileProblem, read_bytes

    ctx = _ctx(cwd)
    body = None
    if source == "-":
        body = sys.stdin.read(MAX_BODY_BYTES + 1)
    elif source is not None:
        path = ctx.expand_path(source, base=ctx.cwd)
        try:
            data = read_bytes(path, MAX_BODY_BYTES)
        except FileProblem as problem:
            raise UsageError(f"cannot read {path}: {problem.message}") from None
        if data is None:
            raise UsageError(f"{path} does not exist; pass an existing file or - for stdin")
        body = data.decode("utf-8", "replace")
    folder = generate_draft(name, description, ctx, body=body, local=local, replace=replace)
    if as_json:
        emit_json({"name": name, "path": str(folder), "skill_md": str(folder / "SKILL.md")})
        return
    where = " --local" if local else ""
    say(f"Drafted {folder / 'SKILL.md'}",
        f"Next: 'lemon skill draft review{where} {name}', then 'lemon skill draft publish"
        f"{where} {name}'.")


@app.command("review", short_help="Show a draft's lint, audit and difference from the skill.")
def review_command(name: str = NAME, local: bool = LOCAL, cwd: Path | None = CWD,
                   as_json: bool = JSON) -> None:
    """Lint (--standard), the security audit, and the difference from an existing skill of
    that name."""
    from lemon_core.cli.output import emit_json, say, say_lines
    from lemon_core.drafts import review_draft

    review = review_draft(name, _ctx(cwd), local=local)
    if as_json:
        emit_json(review)
        return
    lint = review["lint"]
    say(f"Draft {name} ({review['path']})",
        f"Lint --standard: {'ok' if lint['ok'] else 'FAILS'}")
    issues = [f"  {i['code']}: {i['message']}" for i in lint["errors"] + lint["warnings"]]
    if issues:
        say_lines(issues)
    say(f"Audit: {review['verdict']}")
    findings = [f"  [{f.get('severity')}] {f.get('rule_id') or f.get('rule')}: "
                f"{f.get('message')}" for f in review["audit"].get("findings", [])]
    if findings:
        say_lines(findings)
    if review["existing"] is None:
        say("No skill of that name exists: publishing adds it.")
    elif review["diff"]:
        say(f"Difference from {review['existing']}:")
        say_lines(review["diff"].splitlines())
    else:
        say(f"Same as {review['existing']}.")


@app.command("publish", short_help="Make a draft a skill, audited and approved as an install.")
def publish_command(name: str = NAME, local: bool = LOCAL, cwd: Path | None = CWD,
                    approve: bool = typer.Option(False, "--approve", help="Answer yes in "
                                                 "advance (never to a block)."),
                    replace: bool = typer.Option(False, "--replace", help="Replace the skill "
                                                 "of that name."),
                    as_json: bool = JSON) -> None:
    """Write the draft into the scope's skills through the audited write (lint, audit,
    approval, lockfile record, observers); the draft is removed once the skill is written."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.cli.skill_install import _asker, _interactive
    from lemon_core.drafts import publish_draft

    answer: Any = True if approve else (_asker(None) if _interactive() else None)
    result = publish_draft(name, _ctx(cwd), local=local, approve=answer, replace=replace)
    written = result.written[0]
    if as_json:
        emit_json({"name": name, "key": written.key, "path": str(written.path),
                   "verdict": written.verdict, "bundle_hash": written.bundle_hash})
        return
    say(f"Published {written.key} to {written.path} (audit: {written.verdict})")


@app.command("delete", short_help="Delete a draft.")
def delete_command(name: str = NAME, local: bool = LOCAL, cwd: Path | None = CWD,
                   as_json: bool = JSON) -> None:
    """Remove drafts/NAME (the skill of that name, if any, is not touched)."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.drafts import delete_draft

    folder = delete_draft(name, _ctx(cwd), local=local)
    if as_json:
        emit_json({"name": name, "path": str(folder), "deleted": True})
        return
    say(f"Deleted the draft {folder}")
