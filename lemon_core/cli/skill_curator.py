"""``lemon skill curator status|run|pause|resume``: the usage sidecar's conservative
maintenance pass (:mod:`lemon_core.skills.curator`), for a person, cron or an agent harness's
idle hook."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from lemon_core.cli.params import cwd_option, json_option
from lemon_core.cli.skill_app import app as skill_app

app = typer.Typer(help="Keep agent-authored skills tidy: mark unused ones stale, archive "
                  "long-unused ones (never deletes).", no_args_is_help=True,
                  rich_markup_mode=None)
skill_app.add_typer(app, name="curator", short_help="Mark unused agent-written skills stale "
                    "or archived (status, run, pause, resume).")

CWD = cwd_option()
JSON = json_option()
LOCAL = typer.Option(False, "--local", help="The project's skills (.lemon/), not the global "
                     "ones.")
STALE = typer.Option(30, "--stale-after-days", metavar="N", help="Unused for N days: stale.")
ARCHIVE = typer.Option(90, "--archive-after-days", metavar="N",
                       help="Stale and unused for N days: archived (disabled).")


def _ctx(cwd: Path | None) -> Any:
    from lemon_core.skills.calls import call_context

    return call_context(None, cwd)


def _limits(stale: int, archive: int) -> Any:
    from lemon_core.skills.curator import Thresholds

    return Thresholds(stale, archive)


@app.command("status", short_help="Show the curator's state and today's candidates.")
def status_command(local: bool = LOCAL, cwd: Path | None = CWD,
                   stale_after_days: int = STALE, archive_after_days: int = ARCHIVE,
                   as_json: bool = JSON) -> None:
    """The pause flag, interval, last run and report, the skills by lifecycle state, and the
    agent-authored skills that a run would mark stale or archive now."""
    from lemon_core.cli.output import emit_json, say, warn
    from lemon_core.skills.curator import curator_status

    status = curator_status(_ctx(cwd), local=local,
                            limits=_limits(stale_after_days, archive_after_days))
    if as_json:
        emit_json(status)
        return
    if status["usage_problem"]:
        warn(status["usage_problem"])
    counts = status["lifecycle_counts"]
    say(f"Curator ({status['scope']}): {'paused' if status['paused'] else 'on'}, every "
        f"{status['interval_hours']} hours, {'due' if status['due'] else 'not due'}",
        f"Last run: {status['last_run_at'] or 'never'}"
        + (f" ({status['last_report_path']})" if status["last_report_path"] else ""),
        f"Skills in {status['usage_path']}: {status['skills']} ({status['agent_authored']} "
        f"agent-authored): " + ", ".join(f"{n} {state}" for state, n in counts.items()))
    for cand in status["candidates"]:
        say(f"  {cand['key']}: {cand['kind']} candidate, idle {cand['idle_days']} days")


@app.command("run", short_help="Run one conservative pass now.")
def run_command(local: bool = LOCAL, cwd: Path | None = CWD,
                stale_after_days: int = STALE, archive_after_days: int = ARCHIVE,
                prompt: bool = typer.Option(False, "--prompt", help="Also print the "
                                            "consolidation prompt for an agent."),
                force: bool = typer.Option(False, "--force", help="Run even when paused."),
                if_due: bool = typer.Option(False, "--if-due", help="Run only when the "
                                            "interval has passed since the last run (cron)."),
                as_json: bool = JSON) -> None:
    """Active agent-authored skills unused for --stale-after-days become stale; stale ones
    unused for --archive-after-days become archived and are disabled in skills.json; stale
    ones used again become active. Pinned and non-agent-authored skills are skipped; nothing
    is deleted. Writes logs/curator/<run>/run.json and REPORT.md."""
    from lemon_core.cli.output import emit_json, say
    from lemon_core.skills.curator import CONSOLIDATION_PROMPT, run_curator

    result = run_curator(_ctx(cwd), local=local,
                         limits=_limits(stale_after_days, archive_after_days),
                         force=force, if_due=if_due)
    if as_json:
        out: dict[str, Any] = {"ran": result.report is not None, "skipped": result.skipped,
                               "report_path": str(result.report_path)
                               if result.report_path else None, "report": result.report}
        if prompt:
            out["prompt"] = CONSOLIDATION_PROMPT
        emit_json(out)
        return
    if result.report is None:
        say(f"Not run: {result.skipped}")
        return
    counts = result.report["counts"]
    say(f"Curator run {result.report['run_id']}: {counts['stale']} stale, "
        f"{counts['archived']} archived, {counts['reactivated']} reactivated, "
        f"{counts['skipped']} skipped")
    for step in result.report["transitions"]:
        say(f"  {step['key']}: {step['old']} -> {step['new']} ({step['reason']})")
    for problem in result.report["problems"]:
        say(f"  problem: {problem}")
    say(f"Report: {result.report_path}")
    if prompt:
        say("", "Consolidation prompt (give it to an agent with read_skill and skill_manage):",
            "")
        from lemon_core.cli.output import say_lines

        say_lines(CONSOLIDATION_PROMPT.splitlines())


def _pause(paused: bool, local: bool, cwd: Path | None, interval: int | None,
           as_json: bool) -> None:
    from lemon_core.cli.output import emit_json, say
    from lemon_core.skills.curator import curator_path, set_paused

    ctx = _ctx(cwd)
    state = set_paused(ctx, paused, local=local, interval_hours=interval)
    if as_json:
        emit_json({**state, "curator_path": str(curator_path(ctx, local=local))})
        return
    say(f"Curator {'paused' if paused else 'resumed'} (every {state['interval_hours']} hours; "
        f"{curator_path(ctx, local=local)})")


INTERVAL = typer.Option(None, "--interval-hours", metavar="N",
                        help="Also set how often 'run --if-due' runs (default 168).")


@app.command("pause", short_help="Stop runs until resumed.")
def pause_command(local: bool = LOCAL, cwd: Path | None = CWD,
                  interval_hours: int | None = INTERVAL, as_json: bool = JSON) -> None:
    """Pause the curator of the scope: 'run' does nothing until 'resume' (or 'run --force')."""
    _pause(True, local, cwd, interval_hours, as_json)


@app.command("resume", short_help="Let runs happen again.")
def resume_command(local: bool = LOCAL, cwd: Path | None = CWD,
                   interval_hours: int | None = INTERVAL, as_json: bool = JSON) -> None:
    """Resume the curator of the scope."""
    _pause(False, local, cwd, interval_hours, as_json)
