"""The usage sidecar (issue 21 §2): counts, provenance, lifecycle, locking, broken files."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timezone

import pytest

from lemon_core.skills.usage import (
    USAGE_FILE,
    UsageRecorder,
    parse_stamp,
    read_usage,
    usage_path,
)
from tests.helpers import write_skill

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def _recorder(ctx):
    return UsageRecorder(ctx, clock=lambda: WHEN)


def test_the_sidecars_live_outside_the_skill_folders(make_ctx, project, home):
    ctx = make_ctx(LEMON_AGENT_DIR=str(home / "agent"))
    assert usage_path(ctx, local=True) == project / ".lemon" / USAGE_FILE
    assert usage_path(ctx, local=False) == home / "agent" / USAGE_FILE


def test_loads_and_writes_are_counted_with_provenance_and_state(make_ctx):
    ctx = make_ctx()
    recorder = _recorder(ctx)
    assert recorder.record_load("deploy", "project")
    assert recorder.record_load("deploy", "project")
    assert recorder.record_write("deploy", "project", action="create", tool_call_id="call-1")
    assert recorder.record_write("deploy", "project", action="patch")
    assert not recorder.record_write("deploy", "project", action="edit", accepted=False)
    usage = read_usage(ctx, local=True).get("deploy")
    assert (usage.loads, usage.writes) == (2, 2)
    assert usage.last_loaded_at == usage.last_written_at == "2026-01-02T03:04:05Z"
    assert usage.created is not None and usage.created.tool_call_id == "call-1"
    assert usage.created.by == "skill_manage" and usage.agent_authored
    assert usage.lifecycle_state == "active"
    recorder.record_write("deploy", "project", action="pin")
    assert read_usage(ctx, local=True).get("deploy").lifecycle_state == "pinned"
    recorder.record_write("deploy", "project", action="unpin")
    recorder.record_write("deploy", "project", action="archive")
    assert read_usage(ctx, local=True).get("deploy").lifecycle_state == "archived"
    recorder.record_write("deploy", "project", action="delete")
    assert "deploy" not in read_usage(ctx, local=True).skills
    # the global sidecar is a separate file
    assert read_usage(ctx, local=False).skills == {}
    assert parse_stamp("2026-01-02T03:04:05Z") == WHEN


@pytest.mark.parametrize("content", [
    b"{not json", b"[]", b'{"version": 9}', b'{"skills": []}',
    b'{"skills": {"a": {"loads": -1}}}', b'{"skills": {"a": {"lifecycle_state": "gone"}}}',
    b'{"skills": {"bad\\u202ekey": {}}}', b'{"skills": {"a": {"loads": true}}}',
    b'[' * 5000 + b']' * 5000,
])
def test_a_broken_sidecar_reads_as_empty_and_is_left_alone(make_ctx, project, content, caplog):
    ctx = make_ctx()
    path = usage_path(ctx, local=True)
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    read = read_usage(ctx, local=True)
    assert read.skills == {} and read.problem and str(path) in read.problem
    with caplog.at_level(logging.WARNING):
        assert not _recorder(ctx).record_load("a", "project")
    assert "not recorded" in caplog.text
    assert path.read_bytes() == content


def test_a_load_through_read_skill_is_counted_by_the_observer_plugin(make_ctx, project):
    from lemon_core import skills
    from lemon_core.skills.agent import UnknownSkillError, read_skill

    write_skill(project / ".agents" / "skills", "demo")
    workspace = skills.Workspace.open(make_ctx())
    assert isinstance(workspace.recorder, UsageRecorder)
    for _ in range(3):
        read_skill("demo", workspace=workspace)
    with pytest.raises(UnknownSkillError):
        read_skill("missing", workspace=workspace)
    read = workspace.recorder.read("project")
    assert set(read.skills) == {"demo"} and read.skills["demo"].loads == 3
    # the sidecar is outside the skill folder: the bundle is unchanged
    assert sorted(p.name for p in (project / ".agents" / "skills" / "demo").iterdir()) == \
        ["SKILL.md"]


def test_the_observer_can_be_turned_off(make_ctx, project):
    from lemon_core import skills
    from lemon_core.skills.agent import read_skill

    write_skill(project / ".agents" / "skills", "demo")
    workspace = skills.Workspace.open(make_ctx(LEMON_DISABLE_PLUGINS="observers.usage"))
    read_skill("demo", workspace=workspace)
    assert not (project / ".lemon" / USAGE_FILE).exists()


def test_a_broken_sidecar_never_fails_a_load(make_ctx, project):
    from lemon_core import skills
    from lemon_core.skills.agent import read_skill

    write_skill(project / ".agents" / "skills", "demo")
    (project / ".lemon").mkdir()
    (project / ".lemon" / USAGE_FILE).write_bytes(b"\x00garbage")
    result = read_skill("demo", workspace=skills.Workspace.open(make_ctx()))
    assert "Body." in result.content
    assert (project / ".lemon" / USAGE_FILE).read_bytes() == b"\x00garbage"


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from lemon_core.context import LemonContext
    from lemon_core.skills.usage import UsageRecorder
    cwd, agent, count, scope = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
    ctx = LemonContext(cwd=cwd, home=cwd.parent, env={"LEMON_AGENT_DIR": agent},
                       platform="linux")
    recorder = UsageRecorder(ctx)
    for i in range(count):
        assert recorder.record_load("shared", scope)
        assert recorder.record_write(f"own-{sys.argv[5]}", scope, action="patch")
""")


@pytest.mark.parametrize("scope", ["project", "global"])
def test_concurrent_processes_never_lose_an_update(make_ctx, project, tmp_path, scope):
    agent = tmp_path / "agent"
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(project), str(agent), "15",
                               scope, str(n)]) for n in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    ctx = make_ctx(LEMON_AGENT_DIR=str(agent))
    read = read_usage(ctx, local=scope == "project")
    assert read.problem is None
    assert read.skills["shared"].loads == 60
    assert [read.skills[f"own-{n}"].writes for n in range(4)] == [15] * 4


_KILLED = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from lemon_core.context import LemonContext
    from lemon_core.skills.usage import UsageRecorder
    marker = Path(sys.argv[2])
    def stall(fd):
        marker.write_text("writing")
        time.sleep(60)
    os.fsync = stall
    ctx = LemonContext(cwd=Path(sys.argv[1]), home=Path(sys.argv[1]),
                       env={"LEMON_AGENT_DIR": sys.argv[3]}, platform="linux")
    UsageRecorder(ctx).record_load("demo", "global")
""")


def test_a_killed_write_leaves_the_old_sidecar(make_ctx, tmp_path, caplog):
    agent = tmp_path / "agent"
    ctx = make_ctx(LEMON_AGENT_DIR=str(agent))
    _recorder(ctx).record_load("demo", "global")
    before = usage_path(ctx, local=False).read_bytes()
    marker = tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(tmp_path), str(marker),
                             str(agent)])
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert usage_path(ctx, local=False).read_bytes() == before
    read = read_usage(ctx, local=False)
    assert read.problem is None and read.skills["demo"].loads == 1
    assert json.loads(before)["skills"]["demo"]["loads"] == 1
    # the dead writer's lock is reported (never removed behind the user's back) and the
    # next load is not counted, without failing
    with caplog.at_level(logging.WARNING):
        assert not UsageRecorder(ctx).record_load("demo", "global")
    assert "lock" in caplog.text


def test_a_project_sidecar_link_is_refused(make_ctx, project, tmp_path, caplog):
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    (project / ".lemon").mkdir()
    (project / ".lemon" / USAGE_FILE).symlink_to(outside)
    with caplog.at_level(logging.WARNING):
        _recorder(make_ctx()).record_load("demo", "project")
    assert outside.read_text() == "{}"
