"""``skill_manage`` as a library call: every action, every refusal, a killed write. Real
files, the real transaction, the real marker auditor, real observers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemon_core.approval import ApprovalRefused, WriteApproval
from lemon_core.errors import LemonError, UsageError
from lemon_core.install.failures import Blocked
from lemon_core.skills.manage import manage
from lemon_core.state.lockfile import read_lock_records
from lemon_core.testing import EventRecorder
from tests.install.support import Faults, make_plugins, snapshot

SKILL = "---\nname: {key}\ndescription: Use when testing {key}.\n---\n# Steps\nRun make test.\n"


@pytest.fixture
def recorder() -> EventRecorder:
    return EventRecorder()


@pytest.fixture
def plugins(recorder: EventRecorder):
    return make_plugins(recorder)


@pytest.fixture
def ctx(make_ctx):
    return make_ctx()


@pytest.fixture
def skills(project: Path) -> Path:
    return project / ".lemon" / "skill"


def _create(ctx, plugins, key="lesson", **kw):
    return manage("create", key, ctx, content=SKILL.format(key=key), plugins=plugins, **kw)


def test_create_patch_write_file_and_delete_are_audited_writes(ctx, plugins, recorder,
                                                               skills, project) -> None:
    result = _create(ctx, plugins, call_id="call-1")
    assert (result.outcome, result.verdict, result.scope) == ("written", "pass", "project")
    record = read_lock_records(project / ".lemon" / "skills.lock.json")[0]["lesson"]
    assert record.source_kind == "agent"
    manage("patch", "lesson", ctx, old="make test", new="make check", plugins=plugins)
    assert "make check" in (skills / "lesson" / "SKILL.md").read_text()
    manage("write_file", "lesson", ctx, path="references/notes.md", content="# Notes\n",
           plugins=plugins)
    assert (skills / "lesson" / "references" / "notes.md").read_text() == "# Notes\n"
    manage("remove_file", "lesson", ctx, path="references/notes.md", plugins=plugins)
    assert not (skills / "lesson" / "references").exists()
    manage("edit", "lesson", ctx, content=SKILL.format(key="lesson") + "More.\n",
           plugins=plugins)
    assert (skills / "lesson" / "SKILL.md").read_text().endswith("More.\n")
    manage("delete", "lesson", ctx, plugins=plugins)
    assert not (skills / "lesson").exists()
    events = [(e.key, e.action, e.accepted, e.scope) for e in recorder.written]
    assert events == [("lesson", a, True, "project") for a in
                      ("create", "patch", "write_file", "remove_file", "edit", "delete")]
    assert recorder.written[0].tool_call_id == "call-1"
    assert all("make" not in repr(e) for e in recorder.written)  # never the content


@pytest.mark.parametrize("path", ["../escape.md", "/etc/passwd", "notes/x.md", "SKILL.md",
                                  "references/../../x", "references/.hidden",
                                  "references\\x.md", "references/a\u202eb.md", "references"])
def test_a_supporting_file_outside_the_four_folders_is_refused(ctx, plugins, recorder, skills,
                                                               path) -> None:
    _create(ctx, plugins)
    before = snapshot(skills)
    with pytest.raises(UsageError, match="is refused"):
        manage("write_file", "lesson", ctx, path=path, content="x", plugins=plugins)
    assert snapshot(skills) == before
    assert recorder.written[-1].accepted is False and recorder.written[-1].action == "write_file"


def test_a_link_inside_the_skill_is_never_written_through(ctx, plugins, skills,
                                                          tmp_path) -> None:
    _create(ctx, plugins)
    (skills / "lesson" / "references").symlink_to(tmp_path)
    with pytest.raises(UsageError, match="link|holds"):
        manage("write_file", "lesson", ctx, path="references/x.md", content="x",
               plugins=plugins)
    assert not (tmp_path / "x.md").exists()


def test_a_script_the_audit_blocks_is_refused_with_its_findings(ctx, plugins, recorder,
                                                                skills) -> None:
    _create(ctx, plugins)
    before = snapshot(skills)
    with pytest.raises(Blocked, match="blocked by the security audit"):
        manage("write_file", "lesson", ctx, path="scripts/run.sh", content="BLOCKME\n",
               plugins=plugins)
    assert snapshot(skills) == before
    assert [(e.action, e.accepted) for e in recorder.written][-1] == ("write_file", False)


@pytest.mark.parametrize("old", ["absent text", "e"])
def test_a_patch_matching_zero_or_several_times_is_refused(ctx, plugins, skills, old) -> None:
    _create(ctx, plugins)
    before = snapshot(skills)
    with pytest.raises(UsageError, match="occurs once"):
        manage("patch", "lesson", ctx, old=old, new="x", plugins=plugins)
    assert snapshot(skills) == before


def test_refusals_of_arguments(ctx, plugins, skills) -> None:
    with pytest.raises(UsageError, match="unknown action"):
        manage("rename", "lesson", ctx, plugins=plugins)
    with pytest.raises(UsageError, match="unknown scope"):
        manage("create", "lesson", ctx, scope="elsewhere", plugins=plugins)
    with pytest.raises(UsageError, match="cannot be a skill folder's name"):
        manage("create", "../up", ctx, content="x", plugins=plugins)
    with pytest.raises(UsageError, match="no skill"):
        manage("patch", "missing", ctx, old="a", new="b", plugins=plugins)
    _create(ctx, plugins)
    with pytest.raises(UsageError, match="already exists"):
        _create(ctx, plugins)


def test_a_skill_lemon_did_not_install_is_never_rewritten(ctx, plugins, skills) -> None:
    (skills / "mine").mkdir(parents=True)
    (skills / "mine" / "SKILL.md").write_text(SKILL.format(key="mine"))
    before = snapshot(skills)
    with pytest.raises(LemonError):
        manage("patch", "mine", ctx, old="make test", new="x", plugins=plugins)
    assert snapshot(skills) == before


def test_pinned_refuses_delete_and_archive_then_archive_and_restore(ctx, plugins, recorder,
                                                                    skills, project) -> None:
    _create(ctx, plugins)
    assert manage("pin", "lesson", ctx, plugins=plugins).outcome == "pinned"
    usage = json.loads((project / ".lemon" / "skills.usage.json").read_text())
    assert usage["skills"]["lesson"]["lifecycle_state"] == "pinned"
    for action in ("delete", "archive"):
        with pytest.raises(LemonError, match="is pinned"):
            manage(action, "lesson", ctx, plugins=plugins)
    assert (skills / "lesson" / "SKILL.md").exists()
    manage("unpin", "lesson", ctx, plugins=plugins)
    manage("archive", "lesson", ctx, plugins=plugins)
    settings = json.loads((project / ".lemon" / "skills.json").read_text())
    assert "lesson" in settings["disabled"]
    manage("restore", "lesson", ctx, plugins=plugins)
    settings = json.loads((project / ".lemon" / "skills.json").read_text())
    assert "lesson" not in settings["disabled"]
    rows = manage("report", "", ctx, plugins=plugins).rows
    assert [(r["key"], r["lifecycle_state"], r["stale_candidate"]) for r in rows] == [
        ("lesson", "active", False)]
    accepted = [(e.action, e.accepted) for e in recorder.written]
    assert ("delete", False) in accepted and ("archive", False) in accepted


def test_write_approval_asks_a_person(ctx, plugins, project, recorder) -> None:
    (project / ".lemon").mkdir()
    (project / ".lemon" / "config.toml").write_text("[skills]\nwrite_approval = true\n")
    with pytest.raises(ApprovalRefused, match="approval"):
        _create(ctx, plugins)
    with pytest.raises(ApprovalRefused, match="not approved"):
        _create(ctx, plugins, approve=lambda r: False)
    asked: list[WriteApproval] = []
    _create(ctx, plugins, approve=lambda r: asked.append(r) or True)
    assert [r.stage for r in asked] == ["install"]
    assert [(e.action, e.accepted) for e in recorder.written] == [
        ("create", False), ("create", False), ("create", True)]


def test_project_config_wins_over_the_agent_dir(ctx, plugins, project, home) -> None:
    agent = home / ".lemon" / "agent"
    agent.mkdir(parents=True)
    (agent / "config.toml").write_text("[skills]\nwrite_approval = true\n")
    with pytest.raises(ApprovalRefused):
        _create(ctx, plugins)
    (project / ".lemon").mkdir(exist_ok=True)
    (project / ".lemon" / "config.toml").write_text("[skills]\nwrite_approval = false\n")
    assert _create(ctx, plugins).outcome == "written"


@pytest.mark.parametrize("step", ["audit", "lock", "activate", "record", "refresh"])
def test_a_killed_write_leaves_the_skill_as_it_was(ctx, plugins, skills, project,
                                                   step) -> None:
    _create(ctx, plugins)
    before = snapshot(project / ".lemon")
    faults = Faults(step, KeyboardInterrupt(), after=step in ("activate", "record", "refresh"))
    with pytest.raises(KeyboardInterrupt):
        manage("patch", "lesson", ctx, old="make test", new="make check", plugins=plugins,
               steps=faults.steps())
    assert snapshot(project / ".lemon") == before


def test_learning_nudge_false_removes_the_nudge_from_the_prompt_listing(ctx, plugins,
                                                                        project) -> None:
    from lemon_core.skills.agent import prompt_listing

    _create(ctx, plugins)
    assert "record the lesson with skill_manage" in prompt_listing(ctx)
    (project / ".lemon" / "config.toml").write_text("[skills]\nlearning_nudge = false\n")
    listing = prompt_listing(ctx)
    assert "lesson" in listing and "record the lesson" not in listing


def test_report_flags_stale_and_archive_candidates_from_the_sidecar(ctx, plugins,
                                                                    project) -> None:
    for key in ("old", "older", "fresh", "kept"):
        _create(ctx, plugins, key)
    manage("pin", "kept", ctx, plugins=plugins)
    path = project / ".lemon" / "skills.usage.json"
    usage = json.loads(path.read_text())
    usage["skills"].update({
        "old": {"last_loaded_at": "2026-10-01T00:00:00Z"},
        "older": {"last_written_at": "2026-01-01T00:00:00Z"},
        "fresh": {"last_loaded_at": "2026-12-01T00:00:00Z"}})
    usage["skills"]["kept"]["last_loaded_at"] = "2026-01-01T00:00:00Z"
    path.write_text(json.dumps(usage))
    from datetime import datetime, timezone

    from lemon_core.install.targets import scope_for
    from lemon_core.skills.manage_state import report_rows

    now = datetime(2026, 12, 3, tzinfo=timezone.utc).timestamp()
    rows = {r["key"]: (r["stale_candidate"], r["archive_candidate"])
            for r in report_rows(scope_for(ctx, local=True), [], now)}
    assert rows == {"old": (True, False), "older": (True, True), "fresh": (False, False),
                    "kept": (False, False)}


def test_a_skill_md_naming_another_skill_is_refused(ctx, plugins, skills) -> None:
    _create(ctx, plugins, "kept")
    manage("pin", "kept", ctx, plugins=plugins)
    _create(ctx, plugins)
    before = snapshot(skills)
    with pytest.raises(UsageError, match="names the skill 'kept' but the key is 'lesson'"):
        manage("edit", "lesson", ctx, content=SKILL.format(key="kept"), plugins=plugins)
    with pytest.raises(UsageError, match="names the skill"):
        manage("create", "other", ctx, content=SKILL.format(key="kept"), plugins=plugins)
    assert snapshot(skills) == before


def test_concurrent_patches_of_one_skill_are_both_kept(ctx, plugins, skills) -> None:
    import threading

    body = "".join(f"line {n}\n" for n in range(8))
    manage("create", "lesson", ctx, content=SKILL.format(key="lesson") + body, plugins=plugins)
    errors: list[BaseException] = []

    def patch(n: int) -> None:
        try:
            manage("patch", "lesson", ctx, old=f"line {n}\n", new=f"LINE {n}\n",
                   plugins=plugins)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=patch, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    text = (skills / "lesson" / "SKILL.md").read_text()
    assert all(f"LINE {n}\n" in text for n in range(8))
