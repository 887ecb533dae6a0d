"""Local drift and upstream state (``check``/``outdated``) with real installs: the local
source on real folders, and the git source against the loopback git server."""

from __future__ import annotations

import pytest

from lemon_core.errors import LemonError
from lemon_core.install import outdated, pipeline
from lemon_core.install.pipeline import InstallRequest
from tests.gitserver import GitServer, build_repo, commit
from tests.install.support import skill_folder

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _states(ctx, plugins, *keys):
    return outdated.states(ctx, plugins, outdated.installed(ctx, keys))


def test_an_unchanged_local_skill_is_current_both_ways(ctx, plugins, src) -> None:
    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
    (state,) = _states(ctx, plugins).states
    assert state.status == "current" and not state.drift and not state.outdated
    assert state.upstream == state.recorded_upstream == state.recorded_bundle


def test_a_skill_of_a_tree_compares_its_own_subdirectory(ctx, plugins, src) -> None:
    skill_folder(src / "tree", "one")
    skill_folder(src / "tree", "two")
    pipeline.install(InstallRequest(str(src / "tree"), approve=True, all_skills=True), ctx, plugins)
    found = _states(ctx, plugins)
    assert [s.status for s in found.states] == ["current", "current"]
    (src / "tree" / "two" / "SKILL.md").write_text(
        "---\nname: two\ndescription: Use when testing two.\n---\nNew.\n")
    found = _states(ctx, plugins)
    assert [(s.key, s.status) for s in found.states] == [("one", "current"),
                                                         ("two", "outdated")]


def test_local_drift_is_reported_with_the_recorded_hash(ctx, plugins, agent, src) -> None:
    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
    (agent / "skill" / "demo" / "notes.md").write_text("edited here\n")
    (state,) = _states(ctx, plugins, "demo").states
    assert state.drift and state.status == "drift" and not state.outdated
    assert state.current_bundle != state.recorded_bundle


def test_a_removed_folder_is_missing(ctx, plugins, agent, src) -> None:
    import shutil

    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
    shutil.rmtree(agent / "skill" / "demo")
    assert _states(ctx, plugins).states[0].status == "missing"


def test_an_unknown_key_is_refused(ctx, plugins) -> None:
    with pytest.raises(LemonError, match="no lockfile record for 'nope'"):
        outdated.installed(ctx, ("nope",))


def test_an_unreachable_upstream_is_one_error_not_a_crash(ctx, plugins, src) -> None:
    import shutil

    folder = skill_folder(src, "demo")
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    shutil.rmtree(folder)
    (state,) = _states(ctx, plugins).states
    assert state.status == "unknown" and state.upstream is None


@pytest.fixture
def git_plugins(recorder):
    from lemon_plugins.sources import git

    from lemon_core.testing import inline_plugins
    from tests.install.support import MarkerPlugin

    return inline_plugins(("sources.git", git), ("auditors.marker", MarkerPlugin()), recorder)


def _repo_files(names, body="Body.\n"):
    return {f"skills/{n}/SKILL.md": f"---\nname: {n}\ndescription: Use when testing {n}.\n"
                                   f"---\n{body}" for n in names}


def test_git_skills_ask_each_repository_once(ctx, make_ctx, git_plugins, tmp_path) -> None:
    with GitServer() as server:
        urls, repos = [], []
        for r in range(2):
            repo, _ = build_repo(tmp_path / f"r{r}", _repo_files([f"s{r}{i}" for i in range(3)]))
            repos.append(repo)
            urls.append(server.add(f"o/r{r}.git", repo))
        for url in urls:
            pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, git_plugins)
        server.requests.clear()
        found = _states(ctx, git_plugins)
        assert [s.status for s in found.states] == ["current"] * 6
        listings = [r for r in server.requests if "info/refs" in str(r)]
        assert len(listings) == 2, server.requests
        commit(repos[1], _repo_files([f"s1{i}" for i in range(3)], body="New.\n"))
        found = _states(make_ctx(), git_plugins)  # a new command: the listing is asked again
        assert [s.status for s in found.states] == ["current"] * 3 + ["outdated"] * 3
        assert found.states[3].upstream == repos[1].head().decode()


def _fetches(server) -> int:
    return sum(1 for method, path, _ in server.requests
               if method == "POST" and path.endswith("git-upload-pack"))


def _three(tmp_path, server, readme="# readme\n", changed=()):
    files = {**_repo_files(["a", "b", "c"]), "README.md": readme}
    files.update(_repo_files(changed, body="Changed.\n"))
    return files


@pytest.mark.parametrize("transport", ["http", "file"])
def test_a_readme_commit_outdates_nothing_and_a_skill_change_only_that_skill(
        ctx, make_ctx, git_plugins, tmp_path, transport) -> None:
    with GitServer() as server:
        repo, _ = build_repo(tmp_path / "r", _three(tmp_path, server))
        url = (server.add("o/r.git", repo) if transport == "http"
               else (tmp_path / "r").as_uri())
        pipeline.install(InstallRequest(f"git+{url}", approve=True, all_skills=True), ctx, git_plugins)
        commit(repo, _three(tmp_path, server, readme="# new readme\n"))
        server.requests.clear()
        found = _states(make_ctx(), git_plugins)
        assert [(s.key, s.status) for s in found.states] == [
            ("a", "current"), ("b", "current"), ("c", "current")]
        if transport == "http":
            assert _fetches(server) == 1, server.requests  # one fetch for the repository
        commit(repo, _three(tmp_path, server, readme="# new readme\n", changed=["b"]))
        server.requests.clear()
        found = _states(make_ctx(), git_plugins)
        assert [(s.key, s.status) for s in found.states] == [
            ("a", "current"), ("b", "outdated"), ("c", "current")]
        if transport == "http":
            assert _fetches(server) == 1, server.requests
