"""``sync`` and ``sync --frozen`` with real installs: local folders, and git repositories on
the loopback git server whose branch has moved on since the lockfile was written."""

from __future__ import annotations

import shutil

import pytest

from lemon_core.errors import LemonError
from lemon_core.install import pipeline
from lemon_core.install.pipeline import InstallRequest, InstallSteps
from lemon_core.install.sync import OutOfSync, sync
from lemon_core.state.lockfile import read_lock_records
from tests.gitserver import GitServer, build_repo, commit
from tests.install.support import skill_folder, snapshot

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def git_plugins(recorder):
    from lemon_plugins.sources import git

    from lemon_core.testing import inline_plugins
    from tests.install.support import MarkerPlugin

    return inline_plugins(("sources.git", git), ("auditors.marker", MarkerPlugin()), recorder)


def _files(names, body="Body.\n"):
    return {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use when testing {n}.\n"
                                   f"---\n{body}" for n in names}


def test_frozen_reports_every_difference_and_changes_nothing(ctx, plugins, agent, src) -> None:
    for name in ("a", "b", "c"):
        pipeline.install(InstallRequest(str(skill_folder(src, name)), approve=True), ctx, plugins)
    assert sync(ctx, plugins=plugins, frozen=True).differences == ()
    shutil.rmtree(agent / "skill" / "a")
    (agent / "skill" / "b" / "SKILL.md").write_text("---\nname: b\ndescription: x\n---\nEdit\n")
    skill_folder(agent / "skill", "hand-made")
    before = snapshot(agent)
    with pytest.raises(OutOfSync) as caught:
        sync(ctx, plugins=plugins, frozen=True, approve=True)
    assert [(d.key, d.kind) for d in caught.value.differences] == [
        ("a", "missing"), ("b", "bundle"), ("hand-made", "extra")]
    assert "nothing was changed" in str(caught.value) and snapshot(agent) == before


def test_frozen_passes_beside_a_skill_written_by_hand(ctx, plugins, agent, src) -> None:
    pipeline.install(InstallRequest(str(skill_folder(src, "a")), approve=True), ctx, plugins)
    skill_folder(agent / "skill", "hand-made")
    result = sync(ctx, plugins=plugins, frozen=True)
    assert [(d.key, d.kind) for d in result.differences] == [("hand-made", "extra")]


def test_sync_reinstalls_what_differs_as_recorded(ctx, plugins, agent, src) -> None:
    folders = [skill_folder(src, name) for name in ("a", "b")]
    for folder in folders:
        pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    recorded = read_lock_records(agent / "skills.lock.json")[0]
    shutil.rmtree(agent / "skill" / "a")
    result = sync(ctx, plugins=plugins, approve=True)
    assert result.installed == ("a",) and result.fetches == 1
    assert read_lock_records(agent / "skills.lock.json")[0]["a"].bundle_hash == recorded[
        "a"].bundle_hash
    assert sync(ctx, plugins=plugins, frozen=True).differences == ()


def test_sync_refuses_a_source_that_no_longer_has_the_recorded_bundle(ctx, plugins, agent,
                                                                      src) -> None:
    folder = skill_folder(src, "a")
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    shutil.rmtree(agent / "skill" / "a")
    (folder / "SKILL.md").write_text("---\nname: a\ndescription: Use when testing a.\n---\nNew\n")
    before = snapshot(agent)
    with pytest.raises(LemonError, match="is not the expected"):
        sync(ctx, plugins=plugins, approve=True)
    assert snapshot(agent) == before


def test_sync_fetches_a_repository_once_at_its_recorded_commit(ctx, git_plugins, agent,
                                                               tmp_path) -> None:
    names = [f"s{i:02d}" for i in range(20)]
    with GitServer() as server:
        repo, first = build_repo(tmp_path / "repo", _files(names))
        url = server.add("o/skills.git", repo)
        pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, git_plugins)
        commit(repo, _files(names, body="Moved on.\n"))  # the branch moved past the lockfile
        shutil.rmtree(agent / "skill")
        server.requests.clear()
        fetched = []

        class Counting(InstallSteps):
            def fetch(self, source, ref, *rest):  # type: ignore[no-untyped-def]
                fetched.append(ref)
                return super().fetch(source, ref, *rest)

        result = sync(ctx, plugins=git_plugins, approve=True, steps=Counting())
        assert sorted(result.installed) == names and result.fetches == 1 and len(fetched) == 1
        assert fetched[0].revision == first
        # one fetch: a commit that is no tip any more costs a shallow try, then the history
        uploads = [r for r in server.requests if r[1].endswith("/git-upload-pack")]
        assert len(uploads) <= 2, server.requests
    records = read_lock_records(agent / "skills.lock.json")[0]
    assert {r.resolved_commit for r in records.values()} == {first}
    assert {r.requested_ref for r in records.values()} == {None}  # the pin is not the request
    assert "Body." in (agent / "skill" / "s07" / "SKILL.md").read_text()
    assert sync(ctx, plugins=git_plugins, frozen=True).differences == ()


def test_subdirectory_identifiers_of_one_repository_are_fetched_once(ctx, git_plugins, agent,
                                                                     tmp_path) -> None:
    names = ["a", "b", "c"]
    with GitServer() as server:
        repo, first = build_repo(tmp_path / "repo", {**_files(names),
                                                     "other/d/SKILL.md": _files(["d"])[
                                                         "skills/d/SKILL.md"]})
        url = server.add("o/skills.git", repo)
        typed = {n: f"git+{url}#subdirectory=skills/{n}" for n in names}
        typed["d"] = f"git+{url}@main#subdirectory=other/d"
        for identifier in typed.values():
            pipeline.install(InstallRequest(identifier, approve=True), ctx, git_plugins)
        before = read_lock_records(agent / "skills.lock.json")[0]
        for name in ("a", "c"):
            shutil.rmtree(agent / "skill" / name)
        server.requests.clear()
        result = sync(ctx, plugins=git_plugins, approve=True)
        assert sorted(result.installed) == ["a", "c"] and result.fetches == 1
        uploads = [r for r in server.requests if r[1].endswith("/git-upload-pack")]
        assert len(uploads) == 1, server.requests
        # skills of two folders and two refs at one commit: one fetch of the common root
        for name in names:
            shutil.rmtree(agent / "skill" / name)
        shutil.rmtree(agent / "skill" / "d")
        server.requests.clear()
        result = sync(ctx, plugins=git_plugins, approve=True)
        assert sorted(result.installed) == ["a", "b", "c", "d"] and result.fetches == 1
        assert len([r for r in server.requests if r[1].endswith("/git-upload-pack")]) == 1
    after = read_lock_records(agent / "skills.lock.json")[0]
    for key, record in after.items():  # each keeps the identity it was installed with
        assert (record.identifier, record.subdirectory, record.requested_ref,
                record.resolved_commit) == (before[key].identifier, before[key].subdirectory,
                                            before[key].requested_ref, first)
        assert record.bundle_hash == before[key].bundle_hash
    assert after["d"].requested_ref == "main" and after["b"].subdirectory == "skills/b"
    assert sync(ctx, plugins=git_plugins, frozen=True).differences == ()
