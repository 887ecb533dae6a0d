"""``lemon skill update [KEY…]``, ``lemon skill outdated`` and ``lemon skill sync [--frozen]``.

Questions and details go to stderr as for ``lemon skill install``; ``--json`` output on stdout
stays one document. ``outdated`` exits 1 when a skill is outdated, drifted or missing, and
``sync --frozen`` exits 1 on any difference from the lockfile (changing nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option, quiet_option
from lemon_core.cli.skill_app import app
from lemon_core.cli.skill_install import DISCARD_EDITS

CWD = cwd_option()
JSON = json_option()
QUIET = quiet_option()
SCOPE_LOCAL = typer.Option(False, "--local", help="Only the project's skills.")
SCOPE_GLOBAL = typer.Option(False, "--global", help="Only the global skills.")
KEYS = typer.Argument(None, metavar="[KEY]...", help="Skills to update (every recorded "
                      "skill when none is given).")
SYNC_AGENT = typer.Option([], "--agent", metavar="NAME", help="Also place every recorded "
                          "skill where this agent reads skills (repeatable; as install "
                          "--agent).")
SYNC_COPY = typer.Option(False, "--copy", help="With --agent: a real copy, not a link.")
APPROVE = typer.Option(False, "--approve", help="Answer yes to every question in advance "
                       "(never to a trust change or an audit block).")


def _scope(local: bool, global_: bool) -> bool | None:
    if local and global_:
        raise typer.BadParameter("use --local or --global, not both", param_hint="'--global'")
    return True if local else (False if global_ else None)


def _answer(approve: bool, as_json: bool, quiet: bool = False) -> tuple[Any, Any]:
    from lemon_core.cli.report import bar_wanted
    from lemon_core.cli.skill_install import _asker, _interactive, _Progress

    progress = _Progress() if bar_wanted(as_json, quiet) else None
    return (True if approve else (_asker(progress) if _interactive() else None)), progress


def update_json(item: Any) -> dict[str, Any]:
    changes = item.changes
    return {"key": item.key, "scope": item.scope, "action": item.action, "drift": item.drift,
            "upstream_before": item.upstream_before, "upstream_after": item.upstream_after,
            "verdict_before": item.verdict_before, "verdict_after": item.verdict_after,
            "trust_before": item.trust_before, "trust_after": item.trust_after,
            "revision": item.revision,
            "targets_failed": [{"agent": f.agent, "path": f.path, "reason": f.reason,
                                "next": f.next_step} for f in item.target_failures],
            "changes": None if changes is None else {"added": list(changes.added),
                                                     "removed": list(changes.removed),
                                                     "changed": list(changes.changed)}}


def _done(result: Any) -> str:
    what = {"current": "up to date", "reinstalled": "reinstalled (local drift)"}
    return f"{result.key} ({result.scope}): {what.get(result.action, result.action)}"


def _done_line(result: Any) -> None:
    """One line on stderr per skill as soon as it is done (without a terminal there is no
    progress bar: a long update is not silent until the end)."""
    from lemon_core.cli.output import say

    say(_done(result), err=True)


@app.command("update", short_help="Update installed skills from their sources.")
def update_command(
    keys: list[str] = KEYS,
    force: bool = typer.Option(False, "--force", help="Reinstall even when nothing changed."),
    approve: bool = APPROVE,
    allow_trust_change: bool = typer.Option(False, "--allow-trust-change", help="With "
                                            "--approve, accept a change of trust level."),
    discard_edits: bool = DISCARD_EDITS,
    local: bool = SCOPE_LOCAL,
    global_: bool = SCOPE_GLOBAL,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Re-resolve each skill's source; reinstall (with approval, showing files, audit verdict
    and trust before and after) when upstream changed or the local copy drifted."""
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.cli.report import lines_wanted, on_bar
    from lemon_core.skills.updating import update

    which = _scope(local, global_)
    answer, progress = _answer(approve, as_json, quiet)
    try:
        results = update(tuple(keys or ()), cwd=cwd, approve=answer, force=force, local=which,
                         allow_trust_change=allow_trust_change, progress=progress,
                         discard_edits=discard_edits,
                         on_result=_done_line if lines_wanted(as_json, quiet)
                         else on_bar(progress, _done))
    finally:
        if progress is not None:
            progress.stop()
    if as_json:
        emit_json({"updated": [update_json(r) for r in results]})
        if any(r.target_failures for r in results):
            raise typer.Exit(1)
        return
    for r in results:
        if r.action == "current":
            say(f"{r.key} ({r.scope}) is up to date")
            continue
        verb = "Reinstalled (local drift)" if r.action == "reinstalled" else "Updated"
        say(f"{verb} {r.key} ({r.scope}): audit {r.verdict_before} -> {r.verdict_after}, "
            f"trust {r.trust_before} -> {r.trust_after}"
            + (f", at {r.revision}" if r.revision else ""))
        if r.changes is not None:
            say(*(f"  {line}" for line in r.changes.lines()))
        for failed in r.target_failures:
            warn(f"{r.key} was not refreshed in {failed.path} ({failed.agent}): "
                 f"{failed.reason}; {failed.next_step}", label="failed")
    if any(r.target_failures for r in results):
        raise typer.Exit(1)


def install_lines(state: Any) -> list[str]:
    """The drift and upstream lines ``lemon skill check`` adds for a skill lemon installed."""
    if state is None:
        return []
    lines = []
    if state.missing:
        lines.append(f"  installed folder missing: {state.path} (lemon skill sync restores it)")
    elif state.problem is not None:
        lines.append(f"  not ready: the installed folder was {state.problem}; remove what was "
                     f"added, or run 'lemon skill sync' to put the recorded files back")
    elif state.drift:
        lines.append(f"  Local drift: the installed files changed since the install "
                     f"({state.current_bundle} != {state.recorded_bundle})")
    if state.outdated:
        lines.append(f"  Upstream update available: {state.upstream} "
                     f"(installed {state.recorded_upstream})")
    elif state.error:
        lines.append(f"  upstream unknown: {state.error}")
    elif state.upstream is not None and not state.drift:
        lines.append("  up to date with its source")
    return lines


@app.command("outdated", short_help="List installed skills with local drift or updates.")
def outdated_command(
    local: bool = SCOPE_LOCAL,
    global_: bool = SCOPE_GLOBAL,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
) -> None:
    """Every recorded skill: current, outdated (upstream changed), drift (local files
    changed), missing, or unknown (the upstream could not tell); each upstream asked once,
    and each skill judged by its own folder (a repository fetched once when its commit
    moved)."""
    from lemon_core.cli.output import emit_json, say, table, warn
    from lemon_core.skills.updating import outdated

    found = outdated(cwd=cwd, local=_scope(local, global_))
    stale = [s for s in found.states
             if s.status in ("outdated", "drift", "missing", "modified")]
    if as_json:
        emit_json({"skills": [s.to_json() for s in found.states],
                   "upstreams_asked": found.lookups,
                   "repositories_fetched": found.fetches})
    else:
        if not found.states:
            say("No skills installed by lemon (no lockfile records).")
        else:
            say(table([(s.key, s.scope, s.source, s.status) for s in found.states],
                      ("KEY", "SCOPE", "SOURCE", "STATUS")))
        for s in found.states:
            if s.problem:
                warn(f"{s.key} ({s.scope}): the installed folder was {s.problem}", label="note")
            if s.error:
                warn(f"{s.key}: cannot ask its upstream: {s.error}", label="note")
    if stale:
        raise typer.Exit(1)


@app.command("sync", short_help="Install exactly what the lockfile records.")
def sync_command(
    frozen: bool = typer.Option(False, "--frozen", help="Change nothing; fail on any "
                                "difference from the lockfile."),
    approve: bool = APPROVE,
    discard_edits: bool = DISCARD_EDITS,
    local: bool = SCOPE_LOCAL,
    global_: bool = SCOPE_GLOBAL,
    agent: list[str] = SYNC_AGENT,
    copy: bool = SYNC_COPY,
    cwd: Path | None = CWD,
    as_json: bool = JSON,
    quiet: bool = QUIET,
) -> None:
    """Install every recorded skill that is missing or differs, at its recorded commit and
    refused unless its bundle hash is the recorded one; one fetch per repository and commit.
    Recorded agent-root links and copies that are missing are placed again."""
    from lemon_core.cli.output import emit_json, fail, say, warn
    from lemon_core.cli.report import lines_wanted, plugins_for
    from lemon_core.install.sync import OutOfSync
    from lemon_core.skills.updating import sync

    which = _scope(local, global_)
    answer, progress = (None, None) if frozen else _answer(approve, as_json, quiet)
    try:
        result = sync(cwd=cwd, frozen=frozen, local=which, approve=answer, progress=progress,
                      discard_edits=discard_edits,
                      plugins=plugins_for(cwd, lines_wanted(as_json, quiet) and not frozen,
                                          bar=progress),
                      agents=tuple(agent), copy=copy)
    except OutOfSync as exc:
        if as_json:
            emit_json({"in_sync": False, "differences": [_diff_json(d) for d in
                                                         exc.differences]})
            raise typer.Exit(1) from None
        from lemon_core.cli.voice import said

        fail(said(exc), 1)
    finally:
        if progress is not None:
            progress.stop()
    if as_json:
        emit_json({"in_sync": True, "installed": list(result.installed),
                   "fetches": result.fetches,
                   "differences": [_diff_json(d) for d in result.differences],
                   "placed": [{"agent": t.agent, "path": t.path, "mode": t.mode}
                              for t in result.placed],
                   "targets_failed": [{"agent": f.agent, "path": f.path, "reason": f.reason,
                                       "next": f.next_step} for f in result.target_failures]})
        if result.target_failures:
            raise typer.Exit(1)
        return
    if frozen or not (result.installed or result.placed):
        say("The installed skills match the lockfile.")
    elif result.installed:
        say(f"Installed {', '.join(result.installed)} as recorded "
            f"({result.fetches} fetch{'es' if result.fetches != 1 else ''}).")
    for placed in result.placed:
        say(f"  {'Linked' if placed.mode == 'link' else 'Copied'} {placed.path} "
            f"({placed.agent})")
    for d in result.differences:
        if d.kind == "extra":
            say(f"  note: {d.key} ({d.scope}) has no lockfile record (not installed by lemon)")
    for failed in result.target_failures:
        warn(f"not placed in {failed.path} ({failed.agent}): {failed.reason}; "
             f"{failed.next_step}", label="failed")
    if result.target_failures:
        raise typer.Exit(1)


def _diff_json(d: Any) -> dict[str, Any]:
    return {"key": d.key, "scope": d.scope, "kind": d.kind, "recorded": d.recorded,
            "found": d.found, "problem": d.problem}
