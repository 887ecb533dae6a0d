"""``lemon blueprint list|preview|apply``: blueprint bundles (:mod:`lemon_core.blueprints`).

``preview ID`` (or ``--path DIR``) prints what applying would change and the digest;
``apply ID --digest D`` writes it only when D is the fresh digest. ``--json`` on ``list`` prints
``{"blueprints": [{"id", "name", "description", "skills", "servers", "profiles", "valid",
"problems"}]}``; on ``preview`` the plan (``id``, ``profile``, ``scope``, ``skills``,
``servers``, ``name``, ``description``, ``files``, ``problems``, ``digest``); on ``apply``
``{"digest", "skills": [...], "servers": [...]}``. Every name from a bundle is escaped in text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

app = typer.Typer(help="Preview and apply blueprint bundles (skills and MCP servers).",
                  no_args_is_help=True, rich_markup_mode=None)

#: The plugin groups a blueprint uses (sources and auditors, as an install).
NEEDS = ("lemon.sources", "lemon.auditors")


def _setup() -> tuple[Any, Any]:
    from lemon_core.context import LemonContext
    from lemon_core.plugins import load_plugins

    ctx = LemonContext.from_environment()
    return ctx, load_plugins(ctx, needs=NEEDS)


def _consent(approve: bool) -> Any:
    if approve:
        return True
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(request: Any) -> bool:
        from lemon_core.cli.output import ask as ask_line
        from lemon_core.text import escape

        return ask_line(f"lemon would {escape(request.stage)} {escape(request.identifier)} "
                        f"(source {escape(request.source)}, trust {escape(request.trust)}). "
                        f"Go on? [y/N]").lower() in ("y", "yes")

    return ask


@app.command("list", short_help="List the blueprints in <agent dir>/bundles.")
def list_blueprints(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List every bundle of <agent dir>/bundles: id, name, skills, servers, profiles."""
    from lemon_core.blueprints import list_bundles
    from lemon_core.cli.output import emit_json, say, table
    from lemon_core.context import LemonContext
    from lemon_core.text import escape

    found = list_bundles(LemonContext.from_environment())
    rows: list[dict[str, Any]] = []
    for item in found:
        if isinstance(item, tuple):
            rows.append({"id": item[0], "name": None, "description": None, "skills": 0,
                         "servers": 0, "profiles": [], "valid": False,
                         "problems": list(item[1].problems)})
        else:
            rows.append({"id": item.id, "name": item.name, "description": item.description,
                         "skills": len(item.skills), "servers": len(item.servers),
                         "profiles": sorted(item.profiles), "valid": True, "problems": []})
    if as_json:
        emit_json({"blueprints": rows})
        return
    if not rows:
        say("No blueprints: put one in <agent dir>/bundles/<id>/blueprint.toml "
            "(see docs/blueprints.md).")
        return
    say(table([[r["id"], escape(r["name"] or "-"), str(r["skills"]), str(r["servers"]),
                ", ".join(r["profiles"]) or "-", "yes" if r["valid"] else "no"]
               for r in rows], ["ID", "NAME", "SKILLS", "SERVERS", "PROFILES", "VALID"]))


def _show(plan: Any) -> None:
    from lemon_core.cli.output import say
    from lemon_core.text import escape

    bp = plan.blueprint
    say(f"Blueprint {escape(bp.id)} ({escape(bp.name)}), profile {escape(plan.profile.name)}, "
        f"scope {plan.scope}:")
    for skill in plan.skills:
        where = f" at {skill.revision}" if skill.revision else ""
        say(f"  skills from {escape(skill.identifier)} ({skill.source}, trust "
            f"{skill.trust}){where}:")
        for key, change in skill.changes.items():
            verdict = next((r.verdict for r in skill.rows if r.key == key), "-")
            say(f"    {change:<8} skill {escape(key)} (audit {verdict})")
    for server in plan.servers:
        say(f"  {server.change:<10} server {escape(server.name)} "
            f"({escape(server.entry.get('type'))})")
    for problem in plan.problems:
        say(f"  problem: {problem}")
    say(f"digest {plan.digest}")


@app.command("preview", short_help="Show what a blueprint would change, and its digest.")
def preview_blueprint(
    bundle_id: str = typer.Argument(None, metavar="ID", help="The bundle's id."),
    path: str = typer.Option(None, "--path", metavar="DIR", help="Validate the bundle in this folder."),
    profile: str = typer.Option(None, "--profile", metavar="PROFILE", help="The profile to use."),
    approve: bool = typer.Option(False, "--approve", help="Fetch remote sources unasked."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Lint, audit and resolve a blueprint; print what applying it would change and its
    digest (apply it with 'lemon blueprint apply ID --digest DIGEST'). Writes nothing."""
    from lemon_core.blueprints import open_bundle, preview
    from lemon_core.cli.output import emit_json, say

    ctx, plugins = _setup()
    plan = preview(open_bundle(ctx, bundle_id, Path(path) if path else None), ctx, plugins, profile=profile,
                   approve=_consent(approve))
    if as_json:
        emit_json(plan.to_json())
    else:
        _show(plan)
        if not plan.problems and bundle_id is not None:
            extra = f" --profile {profile}" if profile else ""
            say(f"Apply with: lemon blueprint apply {bundle_id} --digest {plan.digest}{extra}")
    if plan.problems:
        raise typer.Exit(1)


@app.command("apply", short_help="Apply a previewed blueprint (needs its fresh digest).")
def apply_blueprint(
    bundle_id: str = typer.Argument(..., metavar="ID", help="The bundle's id."),
    digest: str = typer.Option(..., "--digest", metavar="DIGEST", help="The digest 'preview' printed."),
    profile: str = typer.Option(None, "--profile", metavar="PROFILE", help="The profile to use."),
    approve: bool = typer.Option(False, "--approve", help="Approve fetches and installs."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Install the blueprint's skills and write its servers, all or nothing, only when
    --digest is the digest a fresh preview prints (a changed bundle is refused)."""
    from lemon_core.blueprints import apply, open_bundle
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.text import escape

    ctx, plugins = _setup()
    done = apply(open_bundle(ctx, bundle_id), digest, ctx, plugins, profile=profile,
                 approve=_consent(approve))
    written = done.skills.written if done.skills is not None else ()
    if as_json:
        emit_json({"digest": done.plan.digest,
                   "skills": [{"key": w.key, "path": w.path, "source": w.source,
                               "verdict": w.verdict, "replaced": w.replaced} for w in written],
                   "servers": [{"name": s.name, "action": s.action, "path": str(s.path)}
                               for s in done.servers]})
        return
    for w in written:
        say(f"{'replaced' if w.replaced else 'installed'} skill {escape(w.key)} "
            f"({escape(w.path)})")
    for s in done.servers:
        say(f"{s.action} server {escape(s.name)} ({escape(str(s.path))})")
        for note in s.notes:
            warn(note, label="note")
    say(f"Applied blueprint {escape(bundle_id)} ({done.plan.digest}).")
