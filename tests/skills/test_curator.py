"""The curator (issue 21 §3): conservative transitions with injected clocks, reports, pause."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from lemon_core.errors import UsageError
from lemon_core.skills.curator import (
    CONSOLIDATION_PROMPT,
    Thresholds,
    curator_status,
    read_curator_state,
    run_curator,
    set_paused,
)
from lemon_core.skills.usage import UsageRecorder, read_usage, usage_path
from lemon_core.state.settings import read_settings, settings_path
from tests.helpers import run_cli, write_skill

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _at(days: float):
    return lambda: T0 + timedelta(days=days)


def _setup(make_ctx, project: Path):
    """Four project skills: two agent-authored, one pinned agent-authored, one installed."""
    ctx = make_ctx()
    for key in ("learned", "busy", "kept", "installed"):
        write_skill(project / ".agents" / "skills", key)
    rec = UsageRecorder(ctx, clock=_at(0))
    for key in ("learned", "busy", "kept"):
        rec.record_write(key, "project", action="create", tool_call_id=f"call-{key}")
    rec.record_write("kept", "project", action="pin")
    rec.record_load("installed", "project")
    return ctx


def _states(ctx) -> dict[str, str]:
    return {k: u.lifecycle_state for k, u in read_usage(ctx, local=True).skills.items()}


def test_transitions_are_conservative_and_one_step_per_run(make_ctx, project):
    ctx = _setup(make_ctx, project)
    UsageRecorder(ctx, clock=_at(20)).record_load("busy", "project")
    first = run_curator(ctx, local=True, clock=_at(31))
    assert _states(ctx) == {"learned": "stale", "busy": "active", "kept": "pinned",
                            "installed": "active"}
    assert first.report["counts"] == {"stale": 1, "archived": 0, "reactivated": 0,
                                      "skipped": 2}
    assert first.report["agent_review_needed"] is True
    assert [c["key"] for c in first.report["candidates"]] == ["learned"]
    # long unused: an active skill is only marked stale; a stale one is archived and disabled
    run_curator(ctx, local=True, clock=_at(200))
    assert _states(ctx)["busy"] == "stale" and _states(ctx)["learned"] == "archived"
    project_settings = read_settings(settings_path(ctx, local=True))[0]
    assert project_settings.state("learned") is False
    assert project_settings.state("busy") is None
    # pinned and installed skills never move; nothing is deleted
    assert _states(ctx)["kept"] == "pinned" and _states(ctx)["installed"] == "active"
    assert sorted(p.name for p in (project / ".agents" / "skills").iterdir()) == \
        ["busy", "installed", "kept", "learned"]


def test_a_stale_skill_used_again_is_reactivated(make_ctx, project):
    ctx = _setup(make_ctx, project)
    run_curator(ctx, local=True, clock=_at(40))
    assert _states(ctx)["learned"] == "stale"
    UsageRecorder(ctx, clock=_at(41)).record_load("learned", "project")
    run = run_curator(ctx, local=True, clock=_at(42))
    assert _states(ctx)["learned"] == "active"
    assert run.report["counts"]["reactivated"] >= 1
    assert {"key": "learned", "old": "stale", "new": "active"}.items() <= \
        next(t for t in run.report["transitions"] if t["key"] == "learned").items()


def test_each_run_writes_its_reports_and_the_curator_file(make_ctx, project):
    ctx = _setup(make_ctx, project)
    result = run_curator(ctx, local=True, clock=_at(31))
    path = result.report_path
    assert path.parent.parent == project / ".lemon" / "logs" / "curator"
    document = json.loads(path.read_text())
    for field in ("run_id", "started_at", "duration_seconds", "counts", "transitions",
                  "candidates", "agent_review_needed"):
        assert field in document
    assert "learned" in (path.parent / "REPORT.md").read_text()
    state = read_curator_state(ctx, local=True)
    assert state["last_report_path"] == str(path) and state["paused"] is False
    assert state["interval_hours"] == 168
    # --if-due: not before the interval
    assert run_curator(ctx, local=True, clock=_at(32), if_due=True).skipped
    assert run_curator(ctx, local=True, clock=_at(39), if_due=True).report is not None


def test_pause_resume_and_force(make_ctx, project):
    ctx = _setup(make_ctx, project)
    set_paused(ctx, True, local=True, interval_hours=24)
    paused = run_curator(ctx, local=True, clock=_at(31))
    assert paused.report is None and "paused" in paused.skipped
    assert _states(ctx)["learned"] == "active"
    assert run_curator(ctx, local=True, clock=_at(31), force=True).report is not None
    state = set_paused(ctx, False, local=True)
    assert state["paused"] is False and state["interval_hours"] == 24


def test_status_lists_candidates_and_a_broken_sidecar_stops_a_run(make_ctx, project):
    ctx = _setup(make_ctx, project)
    status = curator_status(ctx, local=True, clock=_at(31))
    assert [c["key"] for c in status["candidates"]] == ["busy", "learned"] or \
        sorted(c["key"] for c in status["candidates"]) == ["busy", "learned"]
    assert status["lifecycle_counts"]["pinned"] == 1
    path = usage_path(ctx, local=True)
    path.write_bytes(b"not json")
    assert curator_status(ctx, local=True)["usage_problem"]
    with pytest.raises(UsageError, match="did not run"):
        run_curator(ctx, local=True, clock=_at(31))
    assert path.read_bytes() == b"not json"


def test_thresholds_are_checked():
    with pytest.raises(UsageError):
        Thresholds(30, 10)
    with pytest.raises(UsageError):
        Thresholds(0, 10)


def test_the_cli(capsys, make_ctx, project, monkeypatch):
    ctx = _setup(make_ctx, project)
    monkeypatch.setenv("HOME", str(ctx.home))
    code, out, _ = run_cli(capsys, "skill", "curator", "status", "--local", "--cwd",
                           str(project), "--stale-after-days", "1", "--json")
    assert code == 0 and json.loads(out)["scope"] == "project"
    code, out, _ = run_cli(capsys, "skill", "curator", "run", "--local", "--cwd", str(project),
                           "--stale-after-days", "1", "--archive-after-days", "2", "--prompt",
                           "--json")
    document = json.loads(out)
    assert code == 0 and document["ran"] and "skill_manage" in document["prompt"]
    assert "read_skill" in document["prompt"]
    code, out, _ = run_cli(capsys, "skill", "curator", "run", "--local", "--cwd", str(project),
                           "--prompt")
    assert code == 0 and "Report:" in out and "umbrella" in out
    code, out, _ = run_cli(capsys, "skill", "curator", "pause", "--local", "--cwd",
                           str(project))
    assert code == 0 and "paused" in out
    code, out, _ = run_cli(capsys, "skill", "curator", "run", "--local", "--cwd", str(project))
    assert code == 0 and "Not run" in out
    code, out, _ = run_cli(capsys, "skill", "curator", "resume", "--local", "--cwd",
                           str(project), "--json")
    assert code == 0 and json.loads(out)["paused"] is False
    assert "patch" in CONSOLIDATION_PROMPT.lower()
