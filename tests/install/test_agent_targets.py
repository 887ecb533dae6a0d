"""``install(..., agents=…, copy=…)``: the skill stored once in lemon's root and linked (or
copied) into the agent roots; remove, update and sync keep every target in step. Real files,
real symbolic links, the real ``local`` source."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from lemon_core.errors import PlantedLinkError, UsageError
from lemon_core.install import agent_targets, pipeline
from lemon_core.install.pipeline import InstallRequest
from lemon_core.install.remove import remove
from lemon_core.install.sync import OutOfSync, sync
from lemon_core.install.update import update
from lemon_core.skills.api import list_skills
from lemon_core.state.lockfile import read_lock_records
from lemon_core.state.records import AgentTarget
from tests.install.support import Faults, skill_folder, snapshot

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _install(ctx, plugins, folder: Path, **options):
    return pipeline.install(InstallRequest(str(folder), approve=True, **options), ctx, plugins)


def _records(lockfile: Path):
    records, problem = read_lock_records(lockfile)
    assert problem is None
    return records


def _hidden(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if n.startswith(".")] if folder.is_dir() else []


def test_global_install_links_each_agent_root_relative_to_lemons_copy(
        ctx, plugins, agent, home, src) -> None:
    result = _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude", "agents"])
    lemons = agent / "skill" / "demo"
    for root in (home / ".claude" / "skills", home / ".agents" / "skills"):
        link = root / "demo"
        assert link.is_symlink() and not os.path.isabs(os.readlink(link))
        assert os.path.realpath(link) == os.path.realpath(lemons)
        assert (link / "SKILL.md").read_text() == (lemons / "SKILL.md").read_text()
        assert _hidden(root) == []  # the temporary name was renamed into place
    assert [(t.agent, t.mode, t.action) for t in result.targets] == [
        ("claude", "link", "linked"), ("agents", "link", "linked")]
    assert result.target_failures == ()
    record = _records(agent / "skills.lock.json")["demo"]
    assert record.targets == (AgentTarget("claude", "link"), AgentTarget("agents", "link"))


def test_project_install_links_below_the_project(ctx, plugins, project, src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), local=True,
             agents=["claude", "github", "codex", "omp"])
    for parts in ((".claude", "skills"), (".github", "skills"), (".codex", "skills"),
                  (".omp", "skills")):
        link = project.joinpath(*parts, "demo")
        assert os.readlink(link) == "../../.lemon/skill/demo"
        assert (link / "SKILL.md").is_file()
    record = _records(project / ".lemon" / "skills.lock.json")["demo"]
    assert [t.agent for t in record.targets] == ["claude", "github", "codex", "omp"]


def test_copy_places_real_folders_in_both_scopes(ctx, plugins, agent, home, project,
                                                 src) -> None:
    folder = skill_folder(src, "demo", extra={"scripts/run.sh": "echo hi\n"})
    result = _install(ctx, plugins, folder, agents=["claude"], copy=True)
    copy = home / ".claude" / "skills" / "demo"
    assert copy.is_dir() and not copy.is_symlink()
    assert (copy / "scripts" / "run.sh").read_text() == "echo hi\n"
    assert [(t.mode, t.action) for t in result.targets] == [("copy", "copied")]
    assert _records(agent / "skills.lock.json")["demo"].targets == (AgentTarget("claude",
                                                                                "copy"),)
    _install(ctx, plugins, folder, local=True, agents=["agents"], copy=True)
    local_copy = project / ".agents" / "skills" / "demo"
    assert local_copy.is_dir() and not local_copy.is_symlink()
    assert _hidden(project / ".agents" / "skills") == []


def test_a_link_that_cannot_be_made_becomes_a_copy_with_a_note(ctx, plugins, agent, home, src,
                                                               monkeypatch) -> None:
    def refuse(text, path, root):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(agent_targets, "make_link", refuse)
    result = _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude"])
    (placed,) = result.targets
    assert placed.mode == "copy" and "a copy was placed instead" in (placed.note or "")
    assert (home / ".claude" / "skills" / "demo").is_dir()
    assert not (home / ".claude" / "skills" / "demo").is_symlink()
    assert _records(agent / "skills.lock.json")["demo"].targets == (AgentTarget("claude",
                                                                                "copy"),)


def test_usage_errors_name_the_valid_agents_and_the_project_only_one(ctx, plugins, agent,
                                                                     src) -> None:
    folder = skill_folder(src, "demo")
    with pytest.raises(UsageError) as caught:
        _install(ctx, plugins, folder, agents=["cursor"])
    assert all(name in str(caught.value)
               for name in ("agents", "claude", "codex", "omp", "github"))
    with pytest.raises(UsageError) as caught:
        _install(ctx, plugins, folder, agents=["github"])
    assert "--local" in str(caught.value)
    with pytest.raises(UsageError, match="--agent"):
        _install(ctx, plugins, folder, copy=True)
    assert not (agent / "skill" / "demo").exists()


@pytest.mark.parametrize("planted", [(".claude",), (".claude", "skills")])
def test_a_planted_agent_root_link_is_refused_and_nothing_is_written(
        ctx, plugins, project, tmp_path, src, planted) -> None:
    outside = tmp_path / "outside"
    (outside / "skills").mkdir(parents=True)
    target = outside if len(planted) == 1 else outside / "skills"
    if len(planted) == 2:
        (project / ".claude").mkdir()
    (project.joinpath(*planted)).symlink_to(target)
    before = snapshot(outside)
    with pytest.raises(PlantedLinkError) as caught:
        _install(ctx, plugins, skill_folder(src, "demo"), local=True, agents=["claude"])
    assert str(project.joinpath(*planted)) in str(caught.value)
    assert snapshot(outside) == before
    assert not (project / ".lemon" / "skill" / "demo").exists()


@pytest.mark.parametrize("force", [False, True])
def test_a_users_own_folder_at_the_target_is_never_touched(ctx, plugins, agent, home, src,
                                                           force) -> None:
    mine = skill_folder(home / ".claude" / "skills", "demo", body="Mine.\n")
    (home / ".agents" / "skills").mkdir(parents=True)
    (home / ".agents" / "skills" / "demo").symlink_to(src)  # a foreign link
    before = snapshot(home / ".claude", home / ".agents")
    if force:
        _install(ctx, plugins, skill_folder(src, "demo"))
    result = _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude", "agents"],
                      force=force)
    assert (agent / "skill" / "demo" / "SKILL.md").is_file()  # installed all the same
    assert snapshot(home / ".claude", home / ".agents") == before
    assert (mine / "SKILL.md").read_text().endswith("Mine.\n")
    assert [f.agent for f in result.target_failures] == ["claude", "agents"]
    for failed in result.target_failures:
        assert "lemon did not place" in failed.reason and "lemon skill sync" in failed.next_step


def test_list_shows_a_linked_or_copied_skill_once(ctx, plugins, agent, home, project,
                                                  src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude", "agents"])
    _install(ctx, plugins, skill_folder(src, "other"), agents=["codex"], copy=True)
    _install(ctx, plugins, folder, local=True, agents=["claude"], copy=True)
    listing = list_skills(ctx, refresh=True)
    assert [item.entry.key for item in listing.skills] == ["demo", "other"]
    demo, other = listing.skills
    # the project's demo wins; the global install is a real other copy (shadowed), but its
    # links and the project's recorded copy are not
    assert demo.entry.dir == str(project / ".lemon" / "skill" / "demo")
    assert demo.entry.shadowed == (str(agent / "skill" / "demo" / "SKILL.md"),)
    assert [(t.agent, t.mode) for t in demo.targets] == [("claude", "copy")]
    assert other.entry.shadowed == () and other.targets[0].path == str(
        home / ".codex" / "skills" / "other")
    assert listing.invalid == ()


def test_a_changed_or_foreign_folder_at_a_copy_target_is_still_listed(
        ctx, plugins, agent, home, src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude"], copy=True)
    copied = home / ".claude" / "skills" / "demo" / "SKILL.md"
    assert list_skills(ctx, refresh=True).skills[0].entry.shadowed == ()
    copied.write_text(copied.read_text() + "Edited by hand.\n")
    (item,) = list_skills(ctx, refresh=True).skills
    assert item.entry.shadowed == (str(copied),)


def test_an_invalid_linked_skill_is_one_invalid_row(ctx, plugins, agent, home, src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"])
    (agent / "skill" / "demo" / "SKILL.md").write_text("---\nname: [broken\n---\n")
    listing = list_skills(ctx, refresh=True)
    assert [(i.key, i.dir) for i in listing.invalid] == [("demo",
                                                          str(agent / "skill" / "demo"))]


def test_remove_takes_out_its_targets_and_leaves_what_the_user_replaced(
        ctx, plugins, agent, home, project, src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude", "agents", "codex"])
    _install(ctx, plugins, folder, agents=["omp"], copy=True, force=True)
    (home / ".agents" / "skills" / "demo").unlink()
    mine = skill_folder(home / ".agents" / "skills", "demo", body="Mine now.\n")
    (home / ".codex" / "skills" / "demo").unlink()  # gone already: nothing to say
    result = remove("demo", ctx, plugins=plugins, approve=True)
    assert not os.path.lexists(home / ".claude" / "skills" / "demo")
    assert not os.path.lexists(home / ".omp" / "agent" / "skills" / "demo")
    assert sorted((t.agent, t.mode) for t in result.targets_removed) == [
        ("claude", "link"), ("omp", "copy")]
    (left,) = result.targets_left
    assert left.agent == "agents" and "left as it is" in left.reason
    assert (mine / "SKILL.md").read_text().endswith("Mine now.\n")
    assert not (agent / "skill" / "demo").exists()


def test_remove_leaves_a_copy_the_user_edited(ctx, plugins, agent, home, src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude"], copy=True)
    copied = home / ".claude" / "skills" / "demo" / "SKILL.md"
    copied.write_text(copied.read_text() + "My note.\n")
    result = remove("demo", ctx, plugins=plugins, approve=True)
    assert [t.agent for t in result.targets_left] == ["claude"]
    assert copied.read_text().endswith("My note.\n")


def test_update_refreshes_copies_and_links_follow(ctx, plugins, agent, home, src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"])
    _install(ctx, plugins, folder, agents=["codex"], copy=True, force=True)
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "Version 2.\n")
    (result,) = update(["demo"], ctx, plugins=plugins, approve=True)
    assert result.action == "updated"
    for root in (home / ".claude" / "skills", home / ".codex" / "skills"):
        assert (root / "demo" / "SKILL.md").read_text().endswith("Version 2.\n")
        assert _hidden(root) == []
    assert (home / ".claude" / "skills" / "demo").is_symlink()
    assert not (home / ".codex" / "skills" / "demo").is_symlink()
    record = _records(agent / "skills.lock.json")["demo"]
    assert record.targets == (AgentTarget("claude", "link"), AgentTarget("codex", "copy"))


def test_update_leaves_a_copy_the_user_edited_and_says_so(ctx, plugins, home, src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"], copy=True)
    copied = home / ".claude" / "skills" / "demo" / "SKILL.md"
    copied.write_text(copied.read_text() + "My note.\n")
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "Version 2.\n")
    (result,) = update(["demo"], ctx, plugins=plugins, approve=True)
    (failed,) = result.target_failures
    assert failed.agent == "claude" and "lemon did not place" in failed.reason
    assert copied.read_text().endswith("My note.\n")


def test_reinstall_keeps_the_targets_recorded_before(ctx, plugins, agent, home, src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"])
    result = _install(ctx, plugins, folder, agents=["agents"], force=True)
    assert [(t.agent, t.action) for t in result.targets] == [("claude", "kept"),
                                                             ("agents", "linked")]
    assert [t.agent for t in _records(agent / "skills.lock.json")["demo"].targets] == [
        "claude", "agents"]


def test_sync_recreates_missing_targets_and_frozen_reports_them(ctx, plugins, agent, home,
                                                                src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude"])
    (home / ".claude" / "skills" / "demo").unlink()
    with pytest.raises(OutOfSync) as caught:
        sync(ctx, plugins=plugins, frozen=True)
    assert [(d.key, d.kind, d.found) for d in caught.value.differences] == [
        ("demo", "target", "claude")]
    result = sync(ctx, plugins=plugins, approve=True)
    assert result.installed == () and [t.agent for t in result.placed] == ["claude"]
    assert (home / ".claude" / "skills" / "demo").is_symlink()
    assert sync(ctx, plugins=plugins, frozen=True).differences == ()


def test_sync_in_a_fresh_home_with_only_the_lockfile_puts_the_links_back(
        ctx, plugins, agent, home, src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude", "agents"])
    _install(ctx, plugins, skill_folder(src, "other"), agents=["codex"], copy=True)
    lockfile = (agent / "skills.lock.json").read_bytes()
    for name in (".lemon", ".claude", ".agents", ".codex"):
        shutil.rmtree(home / name)
    agent.mkdir(parents=True)
    (agent / "skills.lock.json").write_bytes(lockfile)
    result = sync(ctx, plugins=plugins, approve=True)
    assert sorted(result.installed) == ["demo", "other"]
    assert os.path.realpath(home / ".claude" / "skills" / "demo") == os.path.realpath(
        agent / "skill" / "demo")
    assert (home / ".agents" / "skills" / "demo").is_symlink()
    assert (home / ".codex" / "skills" / "other" / "SKILL.md").is_file()
    assert not (home / ".codex" / "skills" / "other").is_symlink()


def test_a_failed_record_undoes_the_placed_targets(ctx, plugins, agent, home, src) -> None:
    faults = Faults("record", OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(OSError):
        pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True,
                                        agents=("claude",)), ctx, plugins, faults.steps())
    assert not os.path.lexists(home / ".claude" / "skills" / "demo")
    assert not (agent / "skill" / "demo").exists()
    assert _hidden(home / ".claude" / "skills") == []


def test_a_lockfile_without_targets_loads_and_keeps_working(ctx, plugins, agent, home,
                                                            src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder)
    data = json.loads((agent / "skills.lock.json").read_text())
    assert "targets" not in data["skills"]["demo"]  # written as before when there are none
    record = _records(agent / "skills.lock.json")["demo"]
    assert record.targets == ()
    assert remove("demo", ctx, plugins=plugins, approve=True).targets_removed == ()


@pytest.fixture
def git_plugins(recorder):
    from lemon_plugins.sources import git

    from lemon_core.testing import inline_plugins
    from tests.install.support import MarkerPlugin

    return inline_plugins(("sources.git", git), ("auditors.marker", MarkerPlugin()), recorder)


def test_a_repository_installed_with_all_links_every_skill_and_a_fresh_home_gets_them_back(
        ctx, git_plugins, agent, home, tmp_path) -> None:
    from tests.gitserver import GitServer, build_repo

    names = ["alpha", "beta", "gamma"]
    files = {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use when testing {n}.\n"
                                     f"---\nBody.\n" for n in names}
    with GitServer() as server:
        repo, _ = build_repo(tmp_path / "repo", files)
        url = server.add("o/skills.git", repo)
        result = pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True, agents=["agents"]), ctx, git_plugins)
        assert sorted((r.key, r.targets[0].action) for r in result.all) == [
            (n, "linked") for n in names]
        lockfile = (agent / "skills.lock.json").read_bytes()
        shutil.rmtree(home / ".lemon")
        shutil.rmtree(home / ".agents")
        agent.mkdir(parents=True)
        (agent / "skills.lock.json").write_bytes(lockfile)
        synced = sync(ctx, plugins=git_plugins, approve=True)
    assert sorted(synced.installed) == names and synced.fetches == 1
    for name in names:
        link = home / ".agents" / "skills" / name
        assert link.is_symlink() and (link / "SKILL.md").is_file()
    assert [i.entry.key for i in list_skills(ctx, refresh=True).skills] == names
    assert all(i.entry.shadowed == () for i in list_skills(ctx).skills)


def test_global_roots_follow_their_override(make_ctx, plugins, tmp_path, src) -> None:
    claude = tmp_path / "claude-skills"
    ctx = make_ctx(LEMON_CLAUDE_SKILLS_DIR=str(claude))
    result = pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, agents=["claude"]), ctx, plugins)
    assert result.targets[0].path == str(claude / "demo") and (claude / "demo").is_symlink()


def test_asking_for_another_mode_switches_a_target_lemon_placed(ctx, plugins, agent, home,
                                                                src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"])
    _install(ctx, plugins, folder, agents=["claude"], copy=True, force=True)
    placed = home / ".claude" / "skills" / "demo"
    assert placed.is_dir() and not placed.is_symlink()
    _install(ctx, plugins, folder, agents=["claude"], force=True)
    assert placed.is_symlink()
    assert _hidden(placed.parent) == []
    assert _records(agent / "skills.lock.json")["demo"].targets == (AgentTarget("claude",
                                                                                "link"),)


def test_an_agent_root_that_is_lemons_own_root_is_left_as_it_is(make_ctx, plugins, home,
                                                                src) -> None:
    ctx = make_ctx(LEMON_AGENT_SKILLS_DIR=str(home / ".claude" / "skills"))
    result = pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True, agents=["claude"]), ctx, plugins)
    assert [(t.agent, t.action) for t in result.targets] == [("claude", "kept")]
    assert result.target_failures == ()
    assert (home / ".claude" / "skills" / "demo").is_dir()
    assert not (home / ".claude" / "skills" / "demo").is_symlink()


def test_the_install_question_names_the_agent_roots(ctx, plugins, home, src) -> None:
    asked = []
    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=lambda request: asked.append(request) or True, agents=["claude", "agents"], copy=True), ctx, plugins)
    (install,) = [r for r in asked if r.stage == "install"]
    assert f"also copied into {home / '.claude' / 'skills'} (claude)" in install.notes
    assert f"also copied into {home / '.agents' / 'skills'} (agents)" in install.notes


def test_sync_with_agent_places_every_recorded_skill_and_records_it(ctx, plugins, agent, home,
                                                                    src) -> None:
    for name in ("a", "b"):
        _install(ctx, plugins, skill_folder(src, name))
    skill_folder(home / ".claude" / "skills", "b", body="Mine.\n")
    result = sync(ctx, plugins=plugins, approve=True, agents=["claude"])
    assert [t.path for t in result.placed] == [str(home / ".claude" / "skills" / "a")]
    assert [f.agent for f in result.target_failures] == ["claude"]  # b is the user's
    assert (home / ".claude" / "skills" / "a").is_symlink()
    assert (home / ".claude" / "skills" / "b" / "SKILL.md").read_text().endswith("Mine.\n")
    records = _records(agent / "skills.lock.json")
    assert records["a"].targets == (AgentTarget("claude", "link"),)
    with pytest.raises(UsageError):
        sync(ctx, plugins=plugins, frozen=True, agents=["claude"])
    with pytest.raises(UsageError, match="--local"):
        sync(ctx, plugins=plugins, approve=True, agents=["github"])


def _killed_placement(root: Path, key: str, lemons: Path) -> tuple[Path, Path]:
    """What a write killed while placing ``key`` leaves in an agent root (the names
    :class:`~lemon_core.install.agent_targets.Placement` uses): a link made under its hidden
    temporary name, never renamed into place, and a copy made the same way."""
    root.mkdir(parents=True, exist_ok=True)
    link = root / f".{key}.lemon-new-0badc0de"
    link.symlink_to(os.path.relpath(lemons, root))
    copy = root / f".{key}.lemon-new-5ca1ab1e"
    shutil.copytree(lemons, copy)
    return link, copy


def test_a_killed_placement_leaves_nothing_after_the_next_install(ctx, plugins, agent, home,
                                                                  src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"])
    claude = home / ".claude" / "skills"
    _killed_placement(claude, "demo", agent / "skill" / "demo")
    (claude / ".other.lemon-new-00000000").mkdir()  # another skill's: not this write's to settle
    result = _install(ctx, plugins, folder, agents=["claude"], force=True)
    assert _hidden(claude) == [".other.lemon-new-00000000"]
    assert sum("interrupted install" in n for n in result.notes) == 2
    assert os.path.realpath(claude / "demo") == os.path.realpath(agent / "skill" / "demo")


def test_a_killed_placement_is_settled_by_sync_and_by_remove(ctx, plugins, agent, home,
                                                            src) -> None:
    _install(ctx, plugins, skill_folder(src, "demo"), agents=["claude"])
    claude = home / ".claude" / "skills"
    (claude / "demo").unlink()  # the link is missing: sync places it again
    _killed_placement(claude, "demo", agent / "skill" / "demo")
    sync(ctx, plugins=plugins, approve=True)
    assert _hidden(claude) == [] and (claude / "demo").is_symlink()
    _killed_placement(claude, "demo", agent / "skill" / "demo")
    result = remove("demo", ctx, plugins=plugins, approve=True)
    assert _hidden(claude) == [] and not os.path.lexists(claude / "demo")
    assert any("interrupted install" in n for n in result.notes)


def test_a_target_set_aside_by_a_killed_placement_is_put_back(ctx, plugins, agent, home,
                                                             src) -> None:
    folder = skill_folder(src, "demo")
    _install(ctx, plugins, folder, agents=["claude"], copy=True)
    claude = home / ".claude" / "skills"
    (claude / "demo").rename(claude / ".demo.lemon-old-feedface")  # killed between renames
    result = _install(ctx, plugins, folder, agents=["claude"], copy=True, force=True)
    assert _hidden(claude) == [] and (claude / "demo" / "SKILL.md").is_file()
    assert any(f"put back {claude / 'demo'}" in n for n in result.notes)
