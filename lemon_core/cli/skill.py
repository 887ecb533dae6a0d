"""``lemon skill …``: list, inspect, check, enable, disable and lint skills."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from lemon_core.cli.params import cwd_option, json_option, key_argument
from lemon_core.cli.skill_app import app

if TYPE_CHECKING:
    from lemon_core.skills.api import ListedSkill


CWD = cwd_option()
JSON = json_option()
KEY = key_argument()
MAX_LISTED_FILES = 1000


def _ctx(cwd: Path | None) -> Any:
    from lemon_core.context import LemonContext

    return LemonContext.from_environment(cwd)


def _warn_diagnostics(diagnostics: Any) -> None:
    from lemon_core.cli.output import diagnostic

    for d in diagnostics:
        diagnostic(d)


def _audit_mark(audits: dict[str, Any], key: str) -> str:
    """`` (load audit: block)`` when the first-load audit of ``key`` warned or blocked."""
    found = audits.get(key)
    return f" (load audit: {found.state})" if found and found.state in ("warn", "block") else ""


@app.command("list", short_help="List every skill and its state.")
def list_command(
    cwd: Path | None = CWD,
    global_only: bool = typer.Option(False, "--global", help="List the global scope alone."),
    as_json: bool = JSON,
) -> None:
    """List every discovered skill with its state; a skill that failed to load is a row in
    state invalid with its reason (the full diagnostic goes to stderr)."""
    from lemon_core.catalog.serialize import entry_view
    from lemon_core.cli.output import emit_json, one_line, say, table
    from lemon_core.skills.api import list_skills
    from lemon_core.skills.load_audit import load_audit_states

    ctx = _ctx(cwd)
    listing = list_skills(ctx, scope="global" if global_only else "all", persistent=True)
    audits = load_audit_states(ctx, listing.skills)  # recorded verdicts: no audit runs here
    if as_json:
        key_of = listing.key_of
        emit_json({
            "skills": [entry_view(i.entry, i.status, i.scope) | {"load_audit": (
                audits[i.entry.key].to_json() if i.entry.key in audits else None),
                "targets": [t.to_json() for t in i.targets]}
                for i in listing.skills],
            "diagnostics": [
                {"path": d.path, "severity": d.severity, "code": d.code, "message": d.message,
                 "key": key_of(d)}
                for d in listing.diagnostics
            ],
        })
        return
    rows = [(i.entry.key, 0, [i.entry.key, i.status.state + _audit_mark(audits, i.entry.key),
                              i.scope + (" (hidden)" if i.entry.hidden else ""),
                              one_line(i.entry.description, 60)]) for i in listing.skills]
    rows += [(i.key, 1, [i.key, "invalid", i.scope, one_line(i.reason, 60)])
             for i in listing.invalid]
    if rows:
        rows.sort(key=lambda row: row[:2])  # stable: a failed copy after the key's winner
        say(table([row[2] for row in rows], ["KEY", "STATE", "SCOPE", "DESCRIPTION"]))
    else:
        say("No skills found.")
    _warn_diagnostics(listing.diagnostics)


def _find(key: str, cwd: Path | None) -> tuple[Any, ListedSkill]:
    from lemon_core.errors import NotFoundError
    from lemon_core.skills.api import invalid_skill_error, list_skills
    from lemon_core.skills.workspace import Workspace

    workspace = Workspace(_ctx(cwd))  # one for the command: its later calls reuse the catalog
    ctx = workspace.ctx
    listing = list_skills(persistent=True, workspace=workspace)
    item = listing.get(key)
    if item is None:
        failed = listing.get_invalid(key)
        if failed is not None:
            raise invalid_skill_error(failed)
        raise NotFoundError(f"no skill with key {key!r} is discovered from {ctx.cwd}; run "
                            f"'lemon skill list' to see the keys")
    return workspace, item


def _skill_files(directory: Path) -> list[str]:
    """SKILL.md and every other file, unsafe names too (the table escapes them)."""
    from lemon_core.fsio.listing import skill_files

    return sorted(["SKILL.md", *skill_files(str(directory), limit=MAX_LISTED_FILES - 1,
                                             unsafe_names=True)])


@app.command("info", short_help="The same as 'inspect' (the spec's alias).")
@app.command("inspect", short_help="Show one skill: manifest, provenance, files.")
def inspect_command(key: str = KEY, cwd: Path | None = CWD, as_json: bool = JSON) -> None:
    """Show one skill: its entry, manifest, provenance and files."""
    from lemon_core.catalog.serialize import entry_view, manifest_view
    from lemon_core.cli.output import emit_json, say_lines
    from lemon_core.skills.api import lock_record

    workspace, item = _find(key, cwd)
    record = lock_record(key, persistent=True, workspace=workspace)
    view = entry_view(item.entry, item.status, item.scope)
    view["manifest"] = manifest_view(item.entry.manifest)
    view["provenance"] = record.to_json() if record is not None else None
    view["files"] = _skill_files(Path(item.entry.dir))
    if as_json:
        emit_json(view)
        return
    manifest = view["manifest"]
    lines = [
        f"{item.entry.key} ({item.status.state}, {item.scope})",
        f"  name:         {view['name']}",
        f"  description:  {view['description']}",
        f"  path:         {view['path']}",
    ]
    for label, field in (("version", "version"), ("author", "author"),
                         ("category", "category")):
        value = manifest.get(field) if field != "category" else view["category"]
        if value:
            lines.append(f"  {label + ':':<13} {value}")
    for label, values in (("tags", manifest["tags"]), ("keywords", manifest["keywords"]),
                          ("platforms", manifest["platforms"]),
                          ("bins", manifest["requires"]["bins"]),
                          ("env vars", manifest["required_environment_variables"]),
                          ("tools", manifest["requires_tools"])):
        if values:
            lines.append(f"  {label + ':':<13} {', '.join(values)}")
    if view["hidden"]:
        lines.append("  hidden:       yes (not offered to models; loadable by name)")
    for path in view["shadowed"]:
        lines.append(f"  shadows:      {path}")
    if record is not None:
        lines.append(f"  source:       {record.source_kind} "
                     f"{record.source_id or ''}".rstrip())
    lines.append(f"  files:        {len(view['files'])}")
    lines.extend(f"    {name}" for name in view["files"])
    say_lines(lines)


@app.command("check", short_help="Check whether a skill is ready to use.")
def check_command(
    key: str = KEY,
    cwd: Path | None = CWD,
    verify: bool = typer.Option(False, "--verify",
                                help="Also run the skill's verification command."),
    offline: bool = typer.Option(False, "--offline", help="Do not ask the skill's source "
                                 "for updates (local drift is still checked)."),
    as_json: bool = JSON,
) -> None:
    """Check whether a skill is ready: platform, binaries, environment, tools; for a skill
    lemon installed, also local drift and whether its source has an update."""
    from lemon_core.catalog.serialize import status_view
    from lemon_core.cli.output import emit_json, say_lines
    from lemon_core.cli.skill_update import install_lines
    from lemon_core.skills.api import skill_status
    from lemon_core.skills.updating import install_state
    from lemon_core.skills.workspace import Workspace

    workspace = Workspace(_ctx(cwd))  # one for the command
    view = status_view(skill_status(key, verify=verify, persistent=True, workspace=workspace))
    installed = install_state(key, upstream=not offline, workspace=workspace)
    if installed is not None and installed.problem is not None:
        view = {**view, "ready": False}  # one verdict: the folder is no safe bundle now
    if as_json:
        emit_json({**view, "install": installed.to_json()} if installed else view)
        return
    lines = [f"{key}: {view['state']}" + (" (ready)" if view["ready"] else "")]
    if view["state"] == "disabled":
        from lemon_core.skills.api import disabled_hint

        hint = disabled_hint(key, workspace=workspace)
        if hint:
            lines.append(f"  {key} {hint}")
    if not view["platform_ok"]:
        lines.append("  not available on this platform")
    for label, field in (("missing binaries", "missing_bins"),
                         ("missing config", "missing_config"),
                         ("missing environment variables", "missing_env_vars"),
                         ("missing tools", "missing_tools")):
        if view[field]:
            lines.append(f"  {label}: {', '.join(view[field])}")
    result = view["verification"]
    if result is not None:
        outcome = "passed" if result["passed"] else "failed"
        detail = result.get("error") or f"exit code {result['exit_code']}"
        lines.append(f"  verification {outcome} ({detail})")
    lines.extend(install_lines(installed))
    say_lines(lines)


def _switch(key: str, cwd: Path | None, local: bool, enabled: bool, as_json: bool) -> None:
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.skills.api import disable_skill, enable_skill, skill_status

    ctx = _ctx(cwd)
    action = enable_skill if enabled else disable_skill
    path = action(key, ctx, local=local)
    disabled = skill_status(key, ctx).disabled
    if as_json:
        emit_json({"key": key, "disabled": disabled, "file": str(path)})
    else:
        say(f"{'Enabled' if enabled else 'Disabled'} {key} in {path}")
    if disabled == enabled:  # a global change the project's own state overrides
        warn(f"{key} is still {'disabled' if disabled else 'enabled'} here: the project's "
             f".lemon/skills.json decides for this project; use --local to change it",
             label="note")


LOCAL = typer.Option(False, "--local", help="Change the project's settings, not the global.")


@app.command("enable", short_help="Switch a skill on.")
def enable_command(key: str = KEY, local: bool = LOCAL, cwd: Path | None = CWD,
                   as_json: bool = JSON) -> None:
    """Switch a skill on (global settings by default, the project's with --local)."""
    _switch(key, cwd, local, True, as_json)


@app.command("disable", short_help="Switch a skill off.")
def disable_command(key: str = KEY, local: bool = LOCAL, cwd: Path | None = CWD,
                    as_json: bool = JSON) -> None:
    """Switch a skill off (global settings by default, the project's with --local)."""
    _switch(key, cwd, local, False, as_json)


@app.command("lint", short_help="Check SKILL.md files against the rules.")
def lint_command(
    paths: list[Path] = typer.Argument(..., metavar="PATH...",
                                       help="Skill folders, SKILL.md files, or folders of "
                                            "skills."),
    strict: bool = typer.Option(False, "--strict", help="Treat warnings as errors."),
    standard: bool = typer.Option(False, "--standard",
                                  help="Apply the Agent Skills standard exactly as its "
                                       "reference validator (skills-ref) does."),
    fix: bool = typer.Option(False, "--fix", help="First rewrite what can be fixed safely "
                             "(BOM, CRLF, a multi-line description, an unquoted ': ', flow "
                             "lists), then lint what remains."),
    diff: bool = typer.Option(False, "--diff", help="With --fix: print what would change as "
                              "a unified diff, write nothing (exit 1 if anything would)."),
    as_json: bool = JSON,
) -> None:
    """Check skills against lemon's rules and the audit (or the Agent Skills standard alone);
    exit 1 on errors."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.lint.runner import lint_paths, results_to_json

    if diff and not fix:
        raise typer.BadParameter("--diff shows what --fix would change; use --fix --diff",
                                 param_hint="'--diff'")
    auditors = None
    if not standard:  # lemon's rules include the audit: warn is a warning, block an error
        from lemon_core.plugins import load_plugins

        auditors = load_plugins(_ctx(None), needs=("lemon.auditors",)).auditors()
    results = lint_paths(paths, strict=strict, standard=standard, fix=fix, dry_run=diff,
                         auditors=auditors)
    if as_json:
        emit_json(results_to_json(results))
    else:
        verb = "would fix" if diff else "fixed"
        for r in results:
            say(f"{'ok  ' if r.ok else 'FAIL'} {r.path}")
            for label, issues in ((verb, r.fixed or ()), ("error", r.errors),
                                  ("warning", r.warnings)):
                for issue in issues:
                    say(f"  {label}: {' '.join(issue.message.split())} [{issue.code}]")
            if r.diff:
                say(*r.diff.splitlines())
    if not all(r.ok for r in results) or (diff and any(r.fixed for r in results)):
        raise typer.Exit(1)

