"""The library API over real SKILL.md files, real roots and real settings files."""

import json
from pathlib import Path

import pytest

from lemon_core import skills
from lemon_core.errors import NotFoundError
from tests.helpers import write_skill


@pytest.fixture
def tree(make_ctx, project: Path, home: Path):
    write_skill(project / ".agents" / "skills", "shared", description="Project copy.")
    write_skill(home / ".agents" / "skills", "shared", description="Global copy.")
    write_skill(home / ".lemon" / "agent" / "skill", "global-only")
    write_skill(project / ".claude" / "skills", "needs-tool",
                "description: Needs a tool.\nrequires:\n  bins: [definitely-not-installed]\n")
    write_skill(project / ".agents" / "skills", "broken", "description: x\nversion: 1.0\n")
    return make_ctx()


def test_list_merges_scopes_sorted_with_states_and_diagnostics(tree, project: Path,
                                                               home: Path) -> None:
    listing = skills.list(tree)
    keys = [item.entry.key for item in listing.skills]
    assert keys == ["global-only", "needs-tool", "shared"]
    shared = listing.get("shared")
    assert shared.entry.description == "Project copy." and shared.scope == "project"
    assert shared.entry.shadowed == (str(home / ".agents" / "skills" / "shared" / "SKILL.md"),)
    assert listing.get("needs-tool").status.state == "not_ready"
    assert listing.get("global-only").status.state == "active"
    [problem] = [d for d in listing.diagnostics if d.severity == "error"]
    assert problem.path == str(project / ".agents" / "skills" / "broken" / "SKILL.md")


def test_global_scope_alone(tree) -> None:
    listing = skills.list(tree, scope="global")
    assert [(i.entry.key, i.entry.description) for i in listing.skills] == [
        ("global-only", "Use when testing global-only."), ("shared", "Global copy.")]


def test_disable_and_enable_change_state_at_once(tree, home: Path, project: Path) -> None:
    skills.disable("shared", tree)
    assert skills.list(tree).get("shared").status.state == "disabled"
    assert json.loads((home / ".lemon" / "agent" / "skills.json").read_text())["disabled"] == \
        ["shared"]
    skills.enable("shared", tree, local=True)
    assert skills.list(tree).get("shared").status.state == "active"
    assert (project / ".lemon" / "skills.json").exists()


def test_unknown_keys_are_clear_errors(tree) -> None:
    assert skills.get("nope", tree) is None
    with pytest.raises(NotFoundError, match="lemon skill list"):
        skills.status("nope", tree)
    with pytest.raises(NotFoundError):
        skills.disable("nope", tree)


def test_blocked_and_builtin_come_from_the_lockfiles(tree, home: Path) -> None:
    lock = home / ".lemon" / "agent" / "skills.lock.json"
    lock.write_text(json.dumps({"version": 1, "skills": {
        "global-only": {"source_kind": "builtin", "audit_status": "block"}}}))
    skills.refresh(tree)
    item = skills.list(tree).get("global-only")
    assert item.scope == "builtin" and item.status.state == "blocked"
    assert skills.lock_record("global-only", tree).source_kind == "builtin"


def test_a_new_skill_is_seen_after_refresh(tree, project: Path) -> None:
    skills.list(tree)
    write_skill(project / ".lemon" / "skill", "fresh")
    skills.refresh(tree)
    assert skills.get("fresh", tree) is not None


def test_hostile_tree_never_breaks_the_listing(tree, project: Path) -> None:
    root = project / ".codex" / "skills"
    (root / "binary").mkdir(parents=True)
    (root / "binary" / "SKILL.md").write_bytes(b"\x00\xff" * 5000)
    (root / "bomb").mkdir()
    (root / "bomb" / "SKILL.md").write_text(
        "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n---\n")
    listing = skills.list(tree, refresh=True)
    assert [i.entry.key for i in listing.skills] == ["global-only", "needs-tool", "shared"]
    paths = {d.path for d in listing.diagnostics}
    assert str(root / "binary" / "SKILL.md") in paths and str(root / "bomb" / "SKILL.md") in paths


def test_statuses_follow_path_env_settings_and_lock_on_every_call(tree, project: Path,
                                                                   tmp_path: Path) -> None:
    """Statuses are reused only while every input is the same: each change shows at once."""
    import os
    import stat

    workspace = skills.Workspace(tree)  # statuses are kept by a workspace between calls
    first = skills.list(workspace=workspace)
    assert skills.list(workspace=workspace).get("needs-tool").status is \
        first.get("needs-tool").status
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "definitely-not-installed"
    program.write_text("#!/bin/sh\n")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    with_path = tree.evolve(env={**tree.env, "PATH": f"{bin_dir}{os.pathsep}{tree.env['PATH']}"})
    on_path = skills.Workspace(with_path)
    assert skills.list(workspace=on_path).get("needs-tool").status.state == "active"
    program.unlink()
    assert skills.list(workspace=on_path).get("needs-tool").status.state == "not_ready"
    skills.disable("shared", workspace=workspace, local=True)
    assert skills.list(workspace=workspace).get("shared").status.state == "disabled"
    assert skills.list(tree.evolve(platform="win32")).get("shared").status.state == "disabled"


def test_refresh_forces_every_catalog_of_those_roots(tree, home: Path, monkeypatch) -> None:
    """After refresh(), the global-scope and the persistent listings re-read too, even inside
    the coalescing window."""
    from lemon_core.catalog import snapshot as catalog_module
    from lemon_core.skills import workspace as workspace_module

    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 3600.0)
    monkeypatch.setattr(workspace_module, "CHECK_INTERVAL", 3600.0)
    ws = skills.Workspace(tree)
    skills.list(workspace=ws, scope="global")
    skills.list(workspace=ws, persistent=True)
    write_skill(home / ".codex" / "skills", "written-just-now")
    assert skills.list(workspace=ws, scope="global").get("written-just-now") is None  # kept
    skills.refresh(workspace=ws)
    assert skills.get("written-just-now", workspace=ws) is not None
    assert skills.list(workspace=ws, scope="global").get("written-just-now") is not None
    assert skills.list(workspace=ws, persistent=True).get("written-just-now") is not None


def test_a_failed_skill_is_listed_as_invalid_with_its_key(tree, project: Path) -> None:
    listing = skills.list(tree)
    [failed] = listing.invalid
    skill_md = str(project / ".agents" / "skills" / "broken" / "SKILL.md")
    assert (failed.key, failed.scope, failed.path) == ("broken", "project", skill_md)
    assert failed.error.code == "wrong_type" and "version must be text" in failed.reason
    assert listing.get("broken") is None and listing.get_invalid("broken") is failed
    [problem] = [d for d in listing.diagnostics if d.severity == "error"]
    assert listing.key_of(problem) == "broken"
    assert listing.get_invalid("shared") is None


def test_a_failed_skill_survives_the_persistent_cache(tree) -> None:
    first = skills.list(tree, persistent=True)
    second = skills.list(tree, persistent=True)
    assert second.invalid == first.invalid and [i.key for i in second.invalid] == ["broken"]


def test_asking_for_a_failed_skill_says_it_failed_and_why(tree, project: Path) -> None:
    from lemon_core.errors import InvalidSkillError

    skill_md = str(project / ".agents" / "skills" / "broken" / "SKILL.md")
    for call in (skills.get, skills.status, skills.lock_record, skills.disable):
        with pytest.raises(InvalidSkillError) as caught:
            call("broken", tree)
        error = caught.value
        assert isinstance(error, NotFoundError) and error.key == "broken"
        assert error.path == skill_md and error.diagnostics[0].code == "wrong_type"
        assert "failed to load" in str(error) and skill_md in str(error)
        assert "version must be text" in str(error)
    assert skills.get("nope", tree) is None  # a key no folder has is still just absent


def test_a_skill_md_that_is_not_a_file_is_a_failed_skill(tree, project: Path) -> None:
    (project / ".agents" / "skills" / "folder-md" / "SKILL.md").mkdir(parents=True)
    [failed] = [i for i in skills.list(tree, refresh=True).invalid if i.key == "folder-md"]
    assert failed.error.code == "not_a_file"


def test_a_nonexistent_or_deleted_cwd_is_an_error(tree, tmp_path: Path, monkeypatch) -> None:
    from lemon_core.context import LemonContext
    from lemon_core.errors import LemonError

    with pytest.raises(LemonError, match="does not exist"):
        skills.list(tree, cwd=tmp_path / "missing")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    with pytest.raises(LemonError, match="the current directory no longer exists; cd to"):
        LemonContext.from_environment()
    with pytest.raises(LemonError, match="no longer exists"):
        skills.list()
