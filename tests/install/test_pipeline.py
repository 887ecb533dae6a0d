"""The staged install pipeline with real parts: the real local source, a real auditor plugin,
real files, links and FIFOs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.errors import LemonError, UsageError
from lemon_core.install import pipeline
from lemon_core.install.checks import UnsafeBundle
from lemon_core.install.pipeline import InstallRequest, InstallSteps
from lemon_core.install.select import ChoiceNeeded
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import Faults, skill_folder, snapshot


def _install(identifier, ctx, plugins, **options):
    options.setdefault("approve", True)
    return pipeline.install(InstallRequest(str(identifier), **options), ctx, plugins)


def test_a_local_skill_installs_with_its_provenance(ctx, plugins, agent, src, recorder) -> None:
    folder = skill_folder(src, "demo", extra={"scripts/run.sh": "echo hi\n"})
    os.chmod(folder / "scripts" / "run.sh", 0o755)
    result = _install(folder, ctx, plugins)
    target = agent / "skill" / "demo"
    assert result.key == "demo" and result.path == str(target) and result.scope == "global"
    assert result.trust == "trusted" and result.verdict == "pass" and result.source == "local"
    assert (target / "scripts" / "run.sh").read_text() == "echo hi\n"
    assert os.access(target / "scripts" / "run.sh", os.X_OK)
    record = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    assert record.source_kind == "local" and record.source_id == str(folder)
    assert record.bundle_hash == result.bundle_hash and record.trust_level == "trusted"
    assert record.content_hash.startswith("sha256:") and record.audit_status == "pass"
    assert record.installed_at == record.updated_at
    assert [(e.key, e.action, e.accepted) for e in recorder.written] == [
        ("demo", "install", True)]
    assert [p.name for p in (agent / "skill").iterdir()] == ["demo"]  # no staging left


def test_local_installs_into_the_project(ctx, plugins, project, src) -> None:
    result = _install(skill_folder(src, "demo"), ctx, plugins, local=True)
    assert result.scope == "project"
    assert (project / ".lemon" / "skill" / "demo" / "SKILL.md").is_file()
    assert "demo" in read_lock_records(project / ".lemon" / "skills.lock.json")[0]


def test_an_existing_skill_is_kept_unless_forced(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo", body="one\n")
    _install(folder, ctx, plugins)
    first = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text().replace("one", "two"))
    with pytest.raises(LemonError, match="already installed.*force=True"):
        _install(folder, ctx, plugins)
    result = _install(folder, ctx, plugins, force=True)
    assert result.replaced and "two" in (agent / "skill" / "demo" / "SKILL.md").read_text()
    second = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    assert second.installed_at == first.installed_at and second.bundle_hash != first.bundle_hash
    assert sorted(p.name for p in (agent / "skill").iterdir()) == ["demo"]  # backup gone


def test_nothing_is_approved_silently(ctx, plugins, agent, src, recorder) -> None:
    folder = skill_folder(src, "demo")
    with pytest.raises(ApprovalRefused, match="needs approval"):
        _install(folder, ctx, plugins, approve=None)
    asked = []
    with pytest.raises(ApprovalRefused, match="not approved"):
        _install(folder, ctx, plugins, approve=lambda r: asked.append(r) or False)
    assert [r.stage for r in asked] == ["fetch"]
    assert not (agent / "skill" / "demo").exists()
    assert [e.accepted for e in recorder.written] == [False, False]


def test_the_install_approval_shows_what_will_be_installed(ctx, plugins, src) -> None:
    folder = skill_folder(src, "demo", extra={"notes.md": "x"})
    asked = []
    _install(folder, ctx, plugins, approve=lambda r: asked.append(r) or True)
    assert [r.stage for r in asked] == ["fetch", "install"]
    final = asked[1]
    assert final.keys == ("demo",) and final.trust == "trusted" and final.verdict == "pass"
    assert final.files == ("SKILL.md", "notes.md") and final.bundle_hashes[0].startswith("sha256")


def test_a_warning_needs_its_own_approval(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo", body="WARNME\n")
    asked = []

    def only_fetch(request):
        asked.append(request.stage)
        return request.stage == "fetch"

    with pytest.raises(ApprovalRefused, match="warned"):
        _install(folder, ctx, plugins, approve=only_fetch)
    assert asked == ["fetch", "warn"] and not (agent / "skill" / "demo").exists()
    result = _install(folder, ctx, plugins, approve=lambda r: True)
    assert result.verdict == "warn" and [f.rule for f in result.findings] == ["test.warn"]
    record = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    assert record.audit_status == "warn" and record.audit_findings == (
        "[warn] test.warn: WARNME found",)


def test_a_refused_install_leaves_no_skills_folder_behind(ctx, plugins, agent, project,
                                                          src) -> None:
    before = snapshot(agent.parent, project)
    with pytest.raises(pipeline.Blocked):
        _install(skill_folder(src, "demo", body="BLOCKME\n"), ctx, plugins)
    with pytest.raises(ApprovalRefused):
        _install(skill_folder(src, "warned", body="WARNME\n"), ctx, plugins, local=True,
                 approve=lambda r: r.stage == "fetch")
    assert not (agent / "skill").exists() and not (project / ".lemon").exists()
    assert snapshot(agent.parent, project) == before


def test_a_block_is_refused_even_when_approved(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo", body="BLOCKME\n")
    with pytest.raises(pipeline.Blocked, match="blocked by the security audit"):
        _install(folder, ctx, plugins, approve=True)
    with pytest.raises(ApprovalRefused):  # approve=True never overrides a block
        _install(folder, ctx, plugins, approve=True, override=True)
    assert not (agent / "skill" / "demo").exists()
    stages = []
    result = _install(folder, ctx, plugins, override=True,
                      approve=lambda r: stages.append(r.stage) or True)
    assert result.verdict == "block" and stages == ["fetch", "override", "install"]
    record = read_lock_records(agent / "skills.lock.json")[0]["demo"]
    assert record.audit_override.bundle_hash == result.bundle_hash
    assert record.audit_override.rules == ("test.block",)
    # the override is bound to this bundle: the same bytes reinstall, others do not
    assert _install(folder, ctx, plugins, force=True).verdict == "block"
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text() + "more\n")
    with pytest.raises(pipeline.Blocked):
        _install(folder, ctx, plugins, force=True)


def test_a_tree_of_skills_is_never_installed_as_one(ctx, plugins, agent, src) -> None:
    tree = src / "many"
    for name in ("alpha", "beta", "gamma"):
        skill_folder(tree / "skills", name)
    with pytest.raises(ChoiceNeeded, match="3 skills") as caught:
        _install(tree, ctx, plugins)
    assert caught.value.choices == ("skills/alpha", "skills/beta", "skills/gamma")
    assert not (agent / "skill").exists() or not any((agent / "skill").iterdir())
    result = _install(tree, ctx, plugins, skills=("beta",))
    assert [r.key for r in result.all] == ["beta"]
    record = read_lock_records(agent / "skills.lock.json")[0]["beta"]
    assert record.subdirectory == "skills/beta"
    result = _install(tree, ctx, plugins, all_skills=True, force=True)
    assert [r.key for r in result.all] == ["alpha", "beta", "gamma"]
    picked = _install(tree, ctx, plugins, force=True, choose=lambda c: [c[-1]])
    assert picked.key == "gamma"
    with pytest.raises(UsageError, match="no skill 'delta'"):
        _install(tree, ctx, plugins, skills=("delta",))


def test_a_skill_installs_under_its_name_whatever_its_folder(ctx, plugins, agent, src) -> None:
    tree = src / "tree"
    skill_folder(tree, "folder-name", manifest_name="other-name")
    skill_folder(tree, "fine")
    result = _install(tree, ctx, plugins, all_skills=True)
    assert sorted(r.key for r in result.all) == ["fine", "other-name"]
    assert (agent / "skill" / "other-name" / "SKILL.md").is_file()
    assert not (agent / "skill" / "folder-name").exists()
    # a root skill takes its SKILL.md name
    root = skill_folder(src, "repo-name", manifest_name="real-name")
    assert _install(root, ctx, plugins).key == "real-name"


def test_an_invalid_manifest_is_refused(ctx, plugins, agent, src) -> None:
    folder = src / "bad"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    with pytest.raises(LemonError, match="SKILL.md of 'bad' is invalid"):
        _install(folder, ctx, plugins)
    assert not (agent / "skill" / "bad").exists()


def test_a_link_out_of_the_skill_is_refused(ctx, plugins, agent, src, tmp_path) -> None:
    folder = skill_folder(src, "linked")
    (folder / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(LemonError) as caught:
        _install(folder, ctx, plugins)
    assert not (agent / "skill" / "linked").exists()
    assert "passwd" in str(caught.value)


def test_the_pipeline_refuses_what_the_scan_finds(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "fifo")

    class FetchWithFifo(InstallSteps):
        def fetch(self, source, ref, tree, ctx_, progress):  # type: ignore[no-untyped-def]
            result = super().fetch(source, ref, tree, ctx_, progress)
            os.mkfifo(tree / "pipe")
            return result

    with pytest.raises(UnsafeBundle, match="special_file"):
        pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins,
                         FetchWithFifo())
    assert not (agent / "skill" / "fifo").exists()
    assert not (agent / "skill").exists()  # not even the folder it would have made


def test_an_unexpected_bundle_is_refused(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo")
    with pytest.raises(LemonError, match="not the expected"):
        _install(folder, ctx, plugins, expected_bundle_hash="sha256:" + "0" * 64)
    assert not (agent / "skill" / "demo").exists()


def test_a_file_changed_after_the_audit_is_refused(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo")

    class TamperWhileAsking(InstallSteps):  # someone edits the staged file during the prompt
        def ask(self, consent, request):  # type: ignore[no-untyped-def]
            super().ask(consent, request)
            if request.stage == "install":
                (Path(request.folders[0]) / "SKILL.md").write_text(
                    "---\nname: demo\n---\nBLOCKME\n")

    with pytest.raises(LemonError, match="changed after they were checked"):
        pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins,
                         TamperWhileAsking())
    assert not (agent / "skill" / "demo").exists()


def test_an_unreadable_lockfile_refuses_before_anything_changes(ctx, plugins, agent,
                                                                src) -> None:
    agent.mkdir(parents=True)
    (agent / "skills.lock.json").write_text("{broken")
    with pytest.raises(LemonError, match="fix"):
        _install(skill_folder(src, "demo"), ctx, plugins)
    assert not (agent / "skill" / "demo").exists()
    assert (agent / "skills.lock.json").read_text() == "{broken"


def test_an_identifier_no_source_accepts_lists_the_forms(ctx, plugins) -> None:
    with pytest.raises(UsageError, match=r"accepted forms: /abs/path"):
        _install("nonsense", ctx, plugins)


#: Every step of an install, and which call of it fails: (step, call, after) where ``after``
#: makes the failing call run the real step first (a crash just after it).
STEPS = [("resolve", 1, False), ("sweep", 1, False), ("stage", 1, False), ("ask", 2, False),
         ("fetch", 1, False), ("pick", 1, False), ("check", 1, False), ("audit", 1, False),
         ("lock", 1, False), ("rehash", 1, False), ("activate", 1, True), ("place", 1, True),
         ("record", 1, True), ("refresh", 1, True)]


@pytest.mark.parametrize("error", [RuntimeError("injected"), KeyboardInterrupt()],
                         ids=["error", "ctrl-c"])
@pytest.mark.parametrize(("step", "at", "after"), STEPS, ids=[s[0] for s in STEPS])
def test_a_failure_at_any_step_leaves_everything_as_it_was(ctx, plugins, agent, src, project,
                                                           home, step, at, after,
                                                           error) -> None:
    old = skill_folder(src / "old", "demo", body="old\n")
    pipeline.install(InstallRequest(str(old), approve=True, agents=("claude",), copy=True),
                     ctx, plugins)
    other = skill_folder(src / "other", "other")
    _install(other, ctx, plugins)
    claude = home / ".claude" / "skills"
    before = snapshot(agent, project, claude)
    new = skill_folder(src / "new", "demo", body="new\n")
    faults = Faults(step, error, at, after=after)
    refreshed = []
    with pytest.raises(type(error)):
        pipeline.install(InstallRequest(str(new), force=True, approve=lambda r: True,
                                        refresh=lambda: refreshed.append(1)), ctx, plugins,
                         faults.steps())
    assert faults.calls >= at, f"{step} was never reached"
    assert snapshot(agent, project, claude) == before  # no stray staging, backup or temp
    records = json.loads((agent / "skills.lock.json").read_text())["skills"]
    assert set(records) == {"demo", "other"}
    assert records["demo"]["source_id"] == str(old)


REMOVE_STEPS = [("sweep", False), ("ask", False), ("lock", False), ("set_aside", True),
                ("record", True), ("refresh", True)]


@pytest.mark.parametrize(("step", "after"), REMOVE_STEPS, ids=[s[0] for s in REMOVE_STEPS])
def test_a_removal_failing_at_any_step_leaves_everything_as_it_was(ctx, plugins, agent, src,
                                                                   home, step, after) -> None:
    from lemon_core.install.remove import remove

    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True,
                                    agents=("claude",)), ctx, plugins)
    claude = home / ".claude" / "skills"
    before = snapshot(agent, claude)
    faults = Faults(step, RuntimeError("injected"), after=after)
    with pytest.raises(RuntimeError):
        remove("demo", ctx, plugins=plugins, approve=lambda r: True, steps=faults.steps())
    assert faults.calls >= 1
    assert snapshot(agent, claude) == before


def test_sync_pins_each_skill_to_its_recorded_bundle(ctx, plugins, agent, src) -> None:
    tree = src / "tree"
    for name in ("alpha", "beta"):
        skill_folder(tree, name)
    first = _install(tree, ctx, plugins, all_skills=True)
    hashes = {item.key: item.bundle_hash for item in first.all}
    again = _install(tree, ctx, plugins, all_skills=True, force=True,
                     expected_bundle_hash=hashes)
    assert {item.key: item.bundle_hash for item in again.all} == hashes
    (tree / "beta" / "SKILL.md").write_text((tree / "beta" / "SKILL.md").read_text() + "x\n")
    before = snapshot(agent)
    with pytest.raises(LemonError, match="'beta'.*is not the expected"):
        _install(tree, ctx, plugins, all_skills=True, force=True, expected_bundle_hash=hashes)
    with pytest.raises(LemonError, match="'alpha'.*is not recorded"):
        _install(tree, ctx, plugins, skills=("alpha",), force=True, expected_bundle_hash={})
    assert snapshot(agent) == before


def test_a_copy_left_aside_by_a_killed_install_is_put_back(ctx, plugins, agent, src) -> None:
    folder = skill_folder(src, "demo")
    _install(folder, ctx, plugins)
    before = snapshot(agent)
    # kill -9 between "old copy to the backup" and "staged copy into place"
    os.rename(agent / "skill" / "demo", agent / "skill" / ".demo.backup-deadbeef")
    with pytest.raises(LemonError, match="already installed"):
        _install(folder, ctx, plugins)
    assert {k.replace(".demo.backup-deadbeef", "demo"): v for k, v in snapshot(agent).items()
            } == before
    assert _install(folder, ctx, plugins, force=True).replaced
    assert sorted(p.name for p in (agent / "skill").iterdir()) == ["demo"]


@pytest.mark.parametrize(("name", "why"), [
    ("C:x", "Windows reserves"),
    ("\uff21\uff22\uff23", "compatibility forms"),
    ("a" * 65, "at most 64"),
])
def test_an_unportable_skill_name_is_refused(ctx, plugins, agent, src, name, why) -> None:
    """Issue 17 §7: a folder name that means another name elsewhere never becomes a key."""
    folder = skill_folder(src, name)
    with pytest.raises(UsageError, match=why):
        _install(folder, ctx, plugins)
    assert not (agent / "skill").exists() or list((agent / "skill").iterdir()) == []
    assert not (agent / "skills.lock.json").exists()


def test_every_name_clash_is_named_with_its_folders(ctx, plugins, tmp_path) -> None:
    tree = tmp_path / "clash"
    for folder in ("a/x", "b/x", "c/y", "d/y", "e/z"):
        skill_folder(tree / folder.split("/")[0], folder.split("/")[1])
    with pytest.raises(LemonError) as caught:
        pipeline.install(InstallRequest(str(tree), approve=True, skills=("a/x", "b/x", "c/y", "d/y", "e/z")), ctx, plugins)
    message = str(caught.value)
    assert "'x' in a/x, b/x" in message and "'y' in c/y, d/y" in message
    assert "'z'" not in message and "nothing was installed" in message
