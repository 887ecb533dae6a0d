"""``update`` with real installs from real folders (the local source) and a real auditor."""

from __future__ import annotations

import json

import attrs
import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.install import pipeline
from lemon_core.install.pipeline import InstallRequest
from lemon_core.install.update import TrustChangeRefused, update
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import Faults, skill_folder, snapshot

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _record(agent, key="demo"):
    return read_lock_records(agent / "skills.lock.json")[0][key]


def _edit(folder, body):
    (folder / "SKILL.md").write_text(
        f"---\nname: {folder.name}\ndescription: Use when testing {folder.name}.\n---\n{body}")


@pytest.fixture
def installed(ctx, plugins, src):
    folder = skill_folder(src, "demo", extra={"notes.md": "old\n", "gone.md": "x\n"})
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    return folder


def test_an_unchanged_skill_only_persists_its_upstream_hash(ctx, plugins, agent,
                                                           installed) -> None:
    from lemon_core.state.lockfile import write_records

    before = _record(agent)
    write_records(agent / "skills.lock.json", {"demo": {**before.to_json(),
                                                        "upstream_hash": "stale"}})
    on_disk = snapshot(agent / "skill")
    (result,) = update((), ctx, plugins=plugins, approve=None)  # nothing to approve
    assert result.action == "current" and not result.drift
    assert result.upstream_after == before.bundle_hash
    after = _record(agent)
    assert after.upstream_hash == before.bundle_hash and after.updated_at == before.updated_at
    assert snapshot(agent / "skill") == on_disk


def test_an_upstream_change_is_shown_and_approved(ctx, plugins, agent, installed) -> None:
    before = _record(agent)
    _edit(installed, "WARNME now\n")
    (installed / "gone.md").unlink()
    (installed / "added.md").write_text("new\n")
    asked = []
    (result,) = update(("demo",), ctx, plugins=plugins,
                       approve=lambda r: asked.append(r) or True)
    assert [r.stage for r in asked] == ["fetch", "warn"]
    notes = asked[1].notes
    assert notes[0] == "update of demo: added: added.md; removed: gone.md; changed: SKILL.md"
    assert notes[1] == "audit: pass -> warn" and notes[2] == "trust: trusted"
    assert result.action == "updated" and result.verdict_before == "pass"
    assert result.verdict_after == "warn" and result.changes.added == ("added.md",)
    after = _record(agent)
    assert after.installed_at == before.installed_at and after.audit_status == "warn"
    assert after.bundle_hash != before.bundle_hash == result.upstream_before
    assert (agent / "skill" / "demo" / "added.md").is_file()
    assert not (agent / "skill" / "demo" / "gone.md").exists()


def test_local_drift_is_reinstalled(ctx, plugins, agent, installed) -> None:
    (agent / "skill" / "demo" / "notes.md").write_text("edited by hand\n")
    # the edit is named and kept unless discarding it is said explicitly (issue 17 §3)
    (result,) = update((), ctx, plugins=plugins, approve=True, discard_edits=True)
    assert result.action == "reinstalled" and result.drift
    assert result.changes.changed == ("notes.md",)
    assert (agent / "skill" / "demo" / "notes.md").read_text() == "old\n"


def test_a_trust_change_is_never_approved_in_advance(ctx, plugins, agent, installed) -> None:
    from lemon_core.state.lockfile import write_records

    lockfile = agent / "skills.lock.json"
    write_records(lockfile, {"demo": {**_record(agent).to_json(), "trust_level": "community"}})
    _edit(installed, "new\n")
    before, on_disk = lockfile.read_bytes(), snapshot(agent / "skill")
    with pytest.raises(TrustChangeRefused, match="from community to trusted"):
        update((), ctx, plugins=plugins, approve=True)
    assert lockfile.read_bytes() == before and snapshot(agent / "skill") == on_disk
    asked = []
    (result,) = update((), ctx, plugins=plugins, approve=lambda r: asked.append(r) or True)
    assert "trust: community -> trusted" in asked[-1].notes
    assert (result.trust_before, result.trust_after) == ("community", "trusted")
    _edit(installed, "newer\n")
    write_records(lockfile, {"demo": {**_record(agent).to_json(), "trust_level": "community"}})
    (result,) = update((), ctx, plugins=plugins, approve=True, allow_trust_change=True)
    assert result.trust_after == "trusted"


def test_a_denied_warning_leaves_the_old_skill(ctx, plugins, agent, installed) -> None:
    _edit(installed, "WARNME\n")
    lockfile = agent / "skills.lock.json"
    before, on_disk = lockfile.read_bytes(), snapshot(agent / "skill")
    with pytest.raises(ApprovalRefused):
        update((), ctx, plugins=plugins, approve=lambda r: r.stage == "fetch")
    assert lockfile.read_bytes() == before and snapshot(agent / "skill") == on_disk


def test_a_failure_restores_the_old_bundle_and_record(ctx, plugins, agent, installed) -> None:
    _edit(installed, "new\n")
    lockfile = agent / "skills.lock.json"
    before, on_disk = lockfile.read_bytes(), snapshot(agent / "skill")
    faults = Faults("refresh", OSError("catalog refresh failed"))
    with pytest.raises(OSError):
        update((), ctx, plugins=plugins, approve=True, steps=faults.steps())
    assert faults.calls == 1
    assert lockfile.read_bytes() == before and snapshot(agent / "skill") == on_disk
    assert json.loads(before)["skills"]["demo"]["bundle_hash"] == _record(agent).bundle_hash


def test_force_reinstalls_an_unchanged_skill(ctx, plugins, agent, installed) -> None:
    (result,) = update((), ctx, plugins=plugins, approve=True, force=True)
    assert result.action == "updated" and result.changes.lines() == ["no file changes"]


def test_a_git_skill_updates_to_the_new_commit(ctx, make_ctx, recorder, agent,
                                               tmp_path) -> None:
    from lemon_plugins.sources import git

    from lemon_core.testing import inline_plugins
    from tests.gitserver import GitServer, build_repo, commit
    from tests.install.support import MarkerPlugin

    plugins = inline_plugins(("sources.git", git), ("auditors.marker", MarkerPlugin()), recorder)

    def files(body):
        return {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use for {n}.\n---\n{body}"
                for n in ("one", "two")}

    with GitServer() as server:
        repo, first = build_repo(tmp_path / "repo", files("v1\n"))
        url = server.add("o/skills.git", repo)
        pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, plugins)
        (result,) = update(("one",), make_ctx(), plugins=plugins)
        assert result.action == "current"
        second = commit(repo, files("v2\n"))
        asked = []
        (result,) = update(("one",), make_ctx(), plugins=plugins,
                           approve=lambda r: asked.append(r) or True)
    assert result.action == "updated" and result.revision == second
    assert result.upstream_before == first and result.upstream_after == second
    assert result.changes.changed == ("SKILL.md",) and asked[-1].revision == second
    records = read_lock_records(agent / "skills.lock.json")[0]
    assert records["one"].resolved_commit == second and records["two"].resolved_commit == first
    assert (agent / "skill" / "one" / "SKILL.md").read_text().endswith("v2\n")


@pytest.fixture
def git_plugins(recorder):
    from lemon_plugins.sources import git

    from lemon_core.testing import inline_plugins
    from tests.install.support import MarkerPlugin

    return inline_plugins(("sources.git", git), ("auditors.marker", MarkerPlugin()), recorder)


def _repo(changed=(), readme="# one\n"):
    files = {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use when testing {n}.\n"
                                     f"---\n{'Changed' if n in changed else 'Body'}.\n"
             for n in ("a", "b", "c")}
    return {**files, "README.md": readme}


def _fetches(server) -> int:
    return sum(1 for method, path, _ in server.requests
               if method == "POST" and path.endswith("git-upload-pack"))


def test_git_skills_are_updated_per_skill_from_one_fetch(ctx, make_ctx, git_plugins, agent,
                                                        tmp_path) -> None:
    from tests.gitserver import GitServer, build_repo, commit

    with GitServer() as server:
        repo, first = build_repo(tmp_path / "r", _repo())
        url = server.add("o/r.git", repo)
        pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, git_plugins)
        tree_ids = {k: _record(agent, k).tree_id for k in "abc"}
        assert all(tree_ids.values()) and len(set(tree_ids.values())) == 3
        readme = commit(repo, _repo(readme="# two\n"))
        server.requests.clear()
        seen = []
        results = update((), make_ctx(), plugins=git_plugins, approve=True,
                         on_result=seen.append)
        assert [(r.key, r.action) for r in results] == [("a", "current"), ("b", "current"),
                                                        ("c", "current")]
        assert seen == results
        assert _fetches(server) == 1  # the repository once, to read the three folders
        for key in "abc":  # the new commit is remembered: the next command fetches nothing
            record = _record(agent, key)
            assert record.upstream_hash == readme and record.resolved_commit == first
            assert record.tree_id == tree_ids[key]
        server.requests.clear()
        assert [r.action for r in update((), make_ctx(), plugins=git_plugins)] == [
            "current"] * 3
        assert _fetches(server) == 0
        changed = commit(repo, _repo(changed=("a", "c"), readme="# two\n"))
        server.requests.clear()
        results = update((), make_ctx(), plugins=git_plugins, approve=True)
        assert [(r.key, r.action) for r in results] == [("a", "updated"), ("b", "current"),
                                                        ("c", "updated")]
        assert results[0].changes.changed == ("SKILL.md",) == results[2].changes.changed
        assert _fetches(server) == 2  # one to judge the folders, one to install both
        assert _record(agent, "a").resolved_commit == changed
        assert _record(agent, "a").tree_id != tree_ids["a"]
        assert _record(agent, "b").tree_id == tree_ids["b"]


def test_an_old_record_without_a_tree_id_compares_the_bundle(ctx, make_ctx, git_plugins,
                                                             agent, tmp_path) -> None:
    from lemon_core.install import outdated
    from lemon_core.state.lockfile import editable_records, write_records
    from tests.gitserver import GitServer, build_repo, commit

    with GitServer() as server:
        repo, _ = build_repo(tmp_path / "r", _repo())
        url = server.add("o/r.git", repo)
        pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, git_plugins)
        lock = agent / "skills.lock.json"
        old = {k: attrs.evolve(r, tree_id=None) for k, r in editable_records(lock).items()}
        write_records(lock, old)
        assert "tree_id" not in json.loads(lock.read_text())["skills"]["a"]
        commit(repo, _repo(changed=("b",), readme="# two\n"))
        found = outdated.states(make_ctx(), git_plugins, outdated.installed(make_ctx()))
        assert [(s.key, s.status) for s in found.states] == [
            ("a", "current"), ("b", "outdated"), ("c", "current")]
        results = update((), make_ctx(), plugins=git_plugins, approve=True)
        assert [r.action for r in results] == ["current", "updated", "current"]
        assert all(_record(agent, k).tree_id for k in "abc")  # recorded now


def test_skills_installed_one_by_one_update_from_one_fetch(ctx, make_ctx, git_plugins, agent,
                                                          tmp_path) -> None:
    from tests.gitserver import GitServer, build_repo, commit

    with GitServer() as server:
        repo, _ = build_repo(tmp_path / "r", _repo())
        url = server.add("o/r.git", repo)
        for key in "ab":
            pipeline.install(InstallRequest(f"git+{url}#subdirectory=skills/{key}", approve=True), ctx, git_plugins)
        assert _record(agent, "a").tree_id and _record(agent, "b").tree_id
        changed = commit(repo, _repo(changed=("a", "b")))
        server.requests.clear()
        results = update((), make_ctx(), plugins=git_plugins, approve=True)
        assert [(r.key, r.action) for r in results] == [("a", "updated"), ("b", "updated")]
        assert _fetches(server) == 2  # one to judge both folders, one to install both
        for key in "ab":  # each keeps its own identity
            record = _record(agent, key)
            assert record.identifier == f"git+{url}#subdirectory=skills/{key}"
            assert record.subdirectory == f"skills/{key}" and record.resolved_commit == changed
