"""The curator: a conservative maintenance pass over the usage sidecar of one scope.

A run (:func:`run_curator`) looks at every agent-authored skill of the sidecar (one with a
``created`` provenance, written through ``skill_manage``); pinned and non-agent-authored
skills are skipped, and nothing is ever deleted. "Idle" is the time since the skill's last load
or write (or its creation when it never was):

- an ``active`` skill idle for ``stale_after_days`` (30) or more becomes ``stale``;
- a ``stale`` skill idle for ``archive_after_days`` (90) or more becomes ``archived`` and is
  disabled in that scope's ``skills.json`` (one step per run: an active skill is marked stale
  first, so it can be noticed and used again before it is archived);
- a ``stale`` skill used since it was marked (idle under ``stale_after_days``) is ``active``
  again.

The decisions are taken under the sidecar's lock on its current records, so a load counted
while the curator runs is never lost nor ignored. Each run writes ``logs/curator/<run>/run.json``
and ``REPORT.md`` under the agent folder (global) or the project's ``.lemon/`` and records the
report's path in ``skills.curator.json`` (with the pause flag and the interval ``run --if-due``
honours: lemon has no scheduler, cron or an agent harness's idle hook runs the curator).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import LemonError, UsageError
from lemon_core.skills.usage import SkillUsage, UsageRecorder, parse_stamp, stamp

CURATOR_FILE = "skills.curator.json"
DEFAULT_STALE_DAYS = 30
DEFAULT_ARCHIVE_DAYS = 90
DEFAULT_INTERVAL_HOURS = 168

CONSOLIDATION_PROMPT = """\
You are curating the skills you wrote while working (your procedural memory). The curator \
report below lists agent-authored skills that went unused (stale) or were archived.

For each lesson those skills hold, in this order of preference:
1. Patch an existing class-level skill that already owns the lesson: read it with read_skill, \
then change it with skill_manage (action "patch": exact old text replaced once, or "edit").
2. Otherwise, update that skill's supporting files (references/, templates/, scripts/) with \
skill_manage action "write_file".
3. Only when no existing skill owns the reusable lesson, create a new class-level umbrella skill \
with skill_manage action "create", and fold the narrow skills' lessons into it.

Then archive the narrow skills you folded in (skill_manage action "archive"); never delete a \
skill, and leave pinned skills alone. Keep each SKILL.md short, with a description that says \
when to use it. Use only read_skill and skill_manage for this review.
"""


@attrs.frozen
class Thresholds:
    stale_after_days: int = DEFAULT_STALE_DAYS
    archive_after_days: int = DEFAULT_ARCHIVE_DAYS

    def __attrs_post_init__(self) -> None:
        if self.stale_after_days < 1 or self.archive_after_days < 1:
            raise UsageError("--stale-after-days and --archive-after-days must be at least 1")
        if self.archive_after_days < self.stale_after_days:
            raise UsageError("--archive-after-days must not be shorter than "
                             "--stale-after-days")


@attrs.frozen
class Transition:
    key: str
    old: str
    new: str
    reason: str
    idle_days: float


@attrs.frozen
class Candidate:
    key: str
    kind: str  # "stale" or "archive"
    lifecycle_state: str
    idle_days: float


def idle_days(usage: SkillUsage, now: datetime) -> float | None:
    """Days since ``usage``'s last load or write (or its creation); None when unknown."""
    last = parse_stamp(usage.last_used_at) or parse_stamp(
        usage.created.at if usage.created else None)
    if last is None:
        return None
    return max(0.0, (now - last) / timedelta(days=1))


def candidate(usage: SkillUsage, now: datetime, limits: Thresholds) -> Candidate | None:
    """Whether ``usage`` is a stale or archive candidate (agent-authored, not pinned)."""
    if not usage.agent_authored or usage.lifecycle_state in ("pinned", "archived"):
        return None
    idle = idle_days(usage, now)
    if idle is None:
        return None
    if usage.lifecycle_state == "stale" and idle >= limits.archive_after_days:
        return Candidate(usage.key, "archive", usage.lifecycle_state, round(idle, 2))
    if usage.lifecycle_state == "active" and idle >= limits.stale_after_days:
        return Candidate(usage.key, "stale", usage.lifecycle_state, round(idle, 2))
    return None


def transition(usage: SkillUsage, now: datetime, limits: Thresholds) -> Transition | None:
    """The one step a run takes for ``usage`` (None: it stays as it is)."""
    if not usage.agent_authored or usage.lifecycle_state in ("pinned", "archived"):
        return None
    idle = idle_days(usage, now)
    if idle is None:
        return None
    days = round(idle, 2)
    if usage.lifecycle_state == "stale":
        if idle >= limits.archive_after_days:
            return Transition(usage.key, "stale", "archived",
                              f"unused for {days} days (>= {limits.archive_after_days})", days)
        changed = parse_stamp(usage.state_changed_at)
        used = parse_stamp(usage.last_used_at)
        if idle < limits.stale_after_days and used and (changed is None or used > changed):
            return Transition(usage.key, "stale", "active", "used again since it was marked "
                              "stale", days)
        return None
    if idle >= limits.stale_after_days:
        return Transition(usage.key, "active", "stale",
                          f"unused for {days} days (>= {limits.stale_after_days})", days)
    return None


# -- the curator's own file ---------------------------------------------------------------------

def _base(ctx: Any, local: bool) -> Path:
    return ctx.project_lemon_dir if local else ctx.agent_dir


def curator_path(ctx: Any, *, local: bool) -> Path:
    return _base(ctx, local) / CURATOR_FILE


def read_curator_state(ctx: Any, *, local: bool) -> dict[str, Any]:
    """``skills.curator.json`` (``paused``, ``interval_hours``, ``last_run_at``,
    ``last_report_path``), defaults filled in; an unreadable file reads as the defaults with a
    ``problem``."""
    from lemon_core.fsio import FileProblem, read_bytes
    from lemon_core.jsondata import loads

    state: dict[str, Any] = {"paused": False, "interval_hours": DEFAULT_INTERVAL_HOURS,
                             "last_run_at": None, "last_report_path": None}
    path = curator_path(ctx, local=local)
    try:
        data = read_bytes(path, 1024 * 1024)
        document = loads(data) if data else {}
    except FileProblem as problem:
        return {**state, "problem": f"{path}: {problem.message}"}
    if not isinstance(document, dict):
        return {**state, "problem": f"{path}: not a JSON object"}
    for name, kind in (("paused", bool), ("interval_hours", int), ("last_run_at", str),
                       ("last_report_path", str)):
        value = document.get(name)
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            state[name] = value
    return state


def _update_curator_state(ctx: Any, local: bool, **changes: Any) -> dict[str, Any]:
    from lemon_core.fsio import Snapshot, dump_json, update_file

    path = curator_path(ctx, local=local)
    result: dict[str, Any] = {}

    def transform(current: Snapshot) -> bytes:
        state = read_curator_state(ctx, local=local)
        state.pop("problem", None)
        state.update(changes)
        result.update(state)
        return dump_json(state)

    update_file(path, transform, root=ctx.cwd if local else None)
    return result


def set_paused(ctx: Any, paused: bool, *, local: bool,
               interval_hours: int | None = None) -> dict[str, Any]:
    """Pause or resume the curator of a scope (``interval_hours``: also set the interval)."""
    changes: dict[str, Any] = {"paused": paused}
    if interval_hours is not None:
        if interval_hours < 1:
            raise UsageError("--interval-hours must be at least 1")
        changes["interval_hours"] = interval_hours
    return _update_curator_state(ctx, local, **changes)


# -- status and run -----------------------------------------------------------------------------

def _now(clock: Callable[[], datetime] | None) -> datetime:
    return (clock or (lambda: datetime.now(timezone.utc)))()


def curator_status(ctx: Any, *, local: bool, limits: Thresholds = Thresholds(),
                   clock: Callable[[], datetime] | None = None) -> dict[str, Any]:
    """What ``lemon skill curator status`` shows: the curator's file, the sidecar's counts by
    lifecycle state, the candidates now, and a sidecar problem if any."""
    now = _now(clock)
    recorder = UsageRecorder(ctx)
    scope = "project" if local else "global"
    usage = recorder.read(scope)
    counts = dict.fromkeys(("active", "stale", "archived", "pinned"), 0)
    for record in usage.skills.values():
        counts[record.lifecycle_state] += 1
    found = [c for c in (candidate(u, now, limits) for u in usage.skills.values()) if c]
    state = read_curator_state(ctx, local=local)
    return {"scope": scope, "usage_path": str(usage.path), "usage_problem": usage.problem,
            "curator_path": str(curator_path(ctx, local=local)), **state,
            "due": _due(state, now), "stale_after_days": limits.stale_after_days,
            "archive_after_days": limits.archive_after_days, "skills": len(usage.skills),
            "agent_authored": sum(1 for u in usage.skills.values() if u.agent_authored),
            "lifecycle_counts": counts, "candidates": [attrs.asdict(c) for c in found]}


def _due(state: dict[str, Any], now: datetime) -> bool:
    last = parse_stamp(state.get("last_run_at"))
    return last is None or now - last >= timedelta(hours=state["interval_hours"])


@attrs.frozen
class CuratorRun:
    """One run's outcome (``report`` is run.json's document; ``skipped``: why it did not run)."""

    report: dict[str, Any] | None
    report_path: Path | None = None
    skipped: str | None = None


def run_curator(ctx: Any, *, local: bool, limits: Thresholds = Thresholds(),
                clock: Callable[[], datetime] | None = None, force: bool = False,
                if_due: bool = False) -> CuratorRun:
    """One conservative pass over the scope's sidecar (see the module's docstring).

    A paused curator does not run unless ``force``; with ``if_due``, it runs only when its
    interval has passed since the last run.
    :raises UsageError: when the sidecar cannot be read (nothing is changed then).
    """
    from lemon_core.skills.api import disable_skill
    from lemon_core.skills.curator_report import write_report

    started = time.monotonic()
    now = _now(clock)
    state = read_curator_state(ctx, local=local)
    if state["paused"] and not force:
        hint = " --local" if local else ""
        return CuratorRun(None, skipped=f"the curator is paused; 'lemon skill curator resume"
                                        f"{hint}' turns it back on (or run it with --force)")
    if if_due and not _due(state, now):
        return CuratorRun(None, skipped=f"not due: the last run was at {state['last_run_at']} "
                                        f"and the interval is {state['interval_hours']} hours")
    scope = "project" if local else "global"
    recorder = attrs.evolve(UsageRecorder(ctx), clock=lambda: now)
    before = recorder.read(scope)
    if before.problem:
        raise UsageError(f"the curator did not run: {before.problem}")
    candidates = [c for c in (candidate(u, now, limits) for u in before.skills.values()) if c]
    transitions: list[Transition] = []
    when = stamp(now)

    def decide(usage: SkillUsage) -> SkillUsage:
        step = transition(usage, now, limits)
        if step is None:
            return usage
        transitions.append(step)
        return attrs.evolve(usage, lifecycle_state=step.new, state_changed_at=when)

    recorder.update(scope, dict.fromkeys(before.skills, decide))
    problems: list[str] = []
    for step in transitions:
        if step.new == "archived":
            try:
                disable_skill(step.key, ctx, local=local)
            except LemonError as exc:  # reported in the run, the transition stays recorded
                problems.append(f"{step.key}: not disabled: {getattr(exc, 'message', exc)}")
    run_id = now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    counts = {name: sum(1 for t in transitions if t.new == target)
              for name, target in (("stale", "stale"), ("archived", "archived"),
                                   ("reactivated", "active"))}
    skipped = sum(1 for u in before.skills.values()
                  if not u.agent_authored or u.lifecycle_state == "pinned")
    report = {"run_id": run_id, "scope": scope, "started_at": when,
              "duration_seconds": round(time.monotonic() - started, 4),
              "stale_after_days": limits.stale_after_days,
              "archive_after_days": limits.archive_after_days,
              "counts": {**counts, "skipped": skipped},
              "transitions": [attrs.asdict(t) for t in transitions],
              "candidates": [attrs.asdict(c) for c in candidates],
              "agent_review_needed": bool(candidates), "problems": problems}
    path = write_report(ctx, local, run_id, report)
    _update_curator_state(ctx, local, last_run_at=when, last_report_path=str(path))
    return CuratorRun(report, path)


__all__ = ["CONSOLIDATION_PROMPT", "CURATOR_FILE", "Candidate", "CuratorRun", "Thresholds",
           "Transition", "candidate", "curator_path", "curator_status", "idle_days",
           "read_curator_state", "run_curator", "set_paused", "transition"]
