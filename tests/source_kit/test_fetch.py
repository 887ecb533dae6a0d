"""fetch_tree against real repositories: dulwich's HTTP server on 127.0.0.1 and file:// URLs."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from lemon_core.source_kit import GitSourceError, fetch_tree, upstream_commit
from tests.gitserver import (
    LFS_POINTER,
    Exec,
    Gitlink,
    GitServer,
    Link,
    build_repo,
    commit,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\nBody.\n"


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server



@pytest.fixture
def history(tmp_path: Path, git_server: GitServer):  # type: ignore[no-untyped-def]
    """A repository with three commits on main (tagged v1 lightweight, v2 annotated at the
    second and third) and a branch ``dev``; served as ``o/demo.git``."""
    repo, first = build_repo(tmp_path / "demo.git", {"SKILL.md": SKILL, "v.txt": "1"})
    second = commit(repo, {"SKILL.md": SKILL, "v.txt": "2"}, tag="v1")
    third = commit(repo, {"SKILL.md": SKILL, "v.txt": "3",
                          "skills/one/SKILL.md": SKILL, "skills/two/SKILL.md": SKILL},
                   tag="v2", annotated=True)
    dev = commit(repo, {"SKILL.md": SKILL, "v.txt": "dev"}, branch="dev", parent=third)
    url = git_server.add("o/demo.git", repo)
    return {"url": url, "repo": repo, "first": first, "second": second, "third": third,
            "dev": dev, "path": tmp_path / "demo.git"}


def _fetch(url: str, ref: str | None, dest: Path, **kw):  # type: ignore[no-untyped-def]
    dest.mkdir()
    return fetch_tree(url, ref, dest, **kw)


@pytest.mark.parametrize(("ref", "expect", "content"), [
    (None, "third", "3"), ("main", "third", "3"), ("dev", "dev", "dev"),
    ("v1", "second", "2"), ("v2", "third", "3"), ("refs/tags/v1", "second", "2"),
])
def test_named_refs_resolve_to_their_exact_commit_shallow(history, tmp_path: Path, ref, expect,
                                                          content) -> None:
    result = _fetch(history["url"], ref, tmp_path / "dest")
    assert result.commit == history[expect]
    assert result.shallow
    assert (tmp_path / "dest" / "v.txt").read_text() == content


@pytest.mark.parametrize(("which", "digits"), [("first", 40), ("first", 7), ("third", 40),
                                               ("third", 8), ("second", 12)])
def test_commit_ids_full_and_short(history, tmp_path: Path, which: str, digits: int) -> None:
    sha = history[which]
    result = _fetch(history["url"], sha[:digits], tmp_path / "dest")
    assert result.commit == sha
    assert result.ref_name is None
    expected = {"first": "1", "second": "2", "third": "3"}[which]
    assert (tmp_path / "dest" / "v.txt").read_text() == expected
    # a tip is fetched alone; the server refuses an older commit shallow: the history instead
    assert result.shallow is (which != "first")  # "second" is the tip of tag v1


def test_a_subdirectory_becomes_the_folder(history, tmp_path: Path) -> None:
    result = _fetch(history["url"], "v2", tmp_path / "dest", subdirectory="skills/one")
    assert result.commit == history["third"]
    assert sorted(os.listdir(tmp_path / "dest")) == ["SKILL.md"]


@pytest.mark.parametrize(("sub", "message"), [("skills/three", "no folder"),
                                              ("v.txt", "a file, not a folder")])
def test_a_missing_subdirectory_is_a_clear_error(history, tmp_path: Path, sub: str,
                                                 message: str) -> None:
    with pytest.raises(GitSourceError, match=message):
        _fetch(history["url"], None, tmp_path / "dest", subdirectory=sub)
    assert os.listdir(tmp_path / "dest") == []


def test_a_missing_ref_names_what_exists(history, tmp_path: Path) -> None:
    with pytest.raises(GitSourceError) as info:
        _fetch(history["url"], "nope", tmp_path / "dest")
    assert "has no branch or tag 'nope'" in str(info.value)
    assert "branches: dev, main" in str(info.value) and "tags: v1, v2" in str(info.value)
    assert os.listdir(tmp_path / "dest") == []
    with pytest.raises(GitSourceError, match="no branch, tag or commit 'abcdef1'"):
        _fetch(history["url"], "abcdef1", tmp_path / "dest2")


def test_file_urls(history, tmp_path: Path) -> None:
    url = f"file://{history['path']}"
    assert _fetch(url, None, tmp_path / "a").commit == history["third"]
    assert _fetch(url, history["first"][:7], tmp_path / "b").commit == history["first"]
    with pytest.raises(GitSourceError, match="no git repository"):
        _fetch(f"file://{tmp_path}/absent.git", None, tmp_path / "c")


def test_no_git_folder_no_hooks_run(tmp_path: Path, git_server: GitServer) -> None:
    marker = tmp_path / "marker"
    script = f"#!/bin/sh\ntouch {marker}\n"
    hooks = dict.fromkeys(("post-checkout", "post-merge", "pre-upload-pack", "post-update", "reference-transaction", "pre-commit"), script)
    repo, sha = build_repo(tmp_path / "hooked", {"SKILL.md": SKILL}, bare=False, hooks=hooks)
    url = git_server.add("o/hooked.git", repo)
    for n, where in enumerate((url, f"file://{tmp_path / 'hooked'}")):
        dest = tmp_path / f"dest{n}"
        assert _fetch(where, None, dest).commit == sha
        assert sorted(os.listdir(dest)) == ["SKILL.md"]
    assert not marker.exists()


def test_links_exec_bits_and_submodules(tmp_path: Path, git_server: GitServer) -> None:
    files = {"SKILL.md": SKILL, "run.sh": Exec(b"#!/bin/sh\necho hi\n"),
             "docs/guide.md": "guide", "guide": Link("docs/guide.md"),
             ".gitmodules": '[submodule "vendor"]\n\tpath = vendor\n\turl = ../vendor.git\n',
             "vendor": Gitlink("1" * 40)}
    repo, _ = build_repo(tmp_path / "r", files)
    result = _fetch(git_server.add("o/r.git", repo), None, tmp_path / "dest")
    dest = tmp_path / "dest"
    assert sorted(os.listdir(dest)) == [".gitmodules", "SKILL.md", "docs", "guide", "run.sh"]
    assert os.readlink(dest / "guide") == "docs/guide.md"
    assert os.stat(dest / "run.sh").st_mode & stat.S_IXUSR
    assert not os.stat(dest / "SKILL.md").st_mode & stat.S_IXUSR
    note = "submodule vendor (commit 111111111111) was not fetched: lemon never fetches submodules"
    assert result.notes == (note,)


def test_lfs_pointers_are_fetched_as_they_are(tmp_path: Path, git_server: GitServer) -> None:
    """The install refuses each skill holding one (tests/install/test_failures.py); the
    fetch of the tree no longer fails for one skill's pointer."""
    repo, _ = build_repo(tmp_path / "r", {"a/SKILL.md": SKILL, "a/img.png": LFS_POINTER,
                                          "b/SKILL.md": SKILL})
    url = git_server.add("o/lfs.git", repo)
    assert _fetch(url, None, tmp_path / "dest").files == 3
    assert (tmp_path / "dest" / "a" / "img.png").read_bytes() == LFS_POINTER
    assert _fetch(url, None, tmp_path / "b", subdirectory="b").files == 1


@pytest.mark.parametrize("name", [".git", ".GIT", ".git.", "git~1"])
def test_a_tree_holding_a_git_folder_is_refused(tmp_path: Path, git_server: GitServer,
                                                name: str) -> None:
    repo, _ = build_repo(tmp_path / "r", {"SKILL.md": SKILL, f"{name}/hooks/post-checkout":
                                          Exec(b"#!/bin/sh\n")})
    with pytest.raises(GitSourceError, match="a .git folder is never installed"):
        _fetch(git_server.add("o/evil.git", repo), None, tmp_path / "dest")
    assert os.listdir(tmp_path / "dest") == []


def test_a_connection_dropped_mid_transfer(history, tmp_path: Path,
                                           git_server: GitServer) -> None:
    git_server.drop_after("o/demo.git", 200)
    with pytest.raises(GitSourceError, match="closed the connection before the transfer "
                                             "finished"):
        _fetch(history["url"], None, tmp_path / "dest")
    assert os.listdir(tmp_path / "dest") == []


def test_a_redirect_to_another_host_is_refused(history, tmp_path: Path,
                                               git_server: GitServer) -> None:
    with GitServer() as other:
        other.add("o/demo.git", history["repo"])
        git_server.redirect("o/moved.git", other.url + "/o/demo.git")
        with pytest.raises(GitSourceError, match="redirected to another host"):
            _fetch(git_server.url + "/o/moved.git", None, tmp_path / "dest")
        assert other.requests == []
    assert os.listdir(tmp_path / "dest") == []
    git_server.redirect("o/renamed.git", git_server.url + "/o/demo.git")
    assert _fetch(git_server.url + "/o/renamed.git", None,
                  tmp_path / "same").commit == history["third"]


def test_unreachable_and_missing_repositories(tmp_path: Path, git_server: GitServer) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(GitSourceError, match=r"cannot reach .*\(connection refused\)"):
        _fetch(f"http://127.0.0.1:{port}/o/r.git", None, tmp_path / "a")
    with pytest.raises(GitSourceError, match="no git repository at"):
        _fetch(git_server.url + "/o/absent.git", None, tmp_path / "b")


def test_upstream_commit_is_one_ref_listing(history, git_server: GitServer) -> None:
    git_server.requests.clear()
    assert upstream_commit(history["url"], "v2") == history["third"]  # peeled
    assert upstream_commit(history["url"], "v1") == history["second"]
    assert upstream_commit(history["url"], None) == history["third"]
    assert upstream_commit(history["url"], history["first"]) == history["first"]
    assert upstream_commit(history["url"], history["first"][:7]) is None  # needs history
    assert {method for method, _, _ in git_server.requests} == {"GET"}
    assert len(git_server.requests) == 5


def test_an_empty_repository(tmp_path: Path, git_server: GitServer) -> None:
    from dulwich.repo import Repo

    (tmp_path / "e.git").mkdir()
    url = git_server.add("o/e.git", Repo.init_bare(str(tmp_path / "e.git")))
    for where in (url, f"file://{tmp_path / 'e.git'}"):
        with pytest.raises(GitSourceError, match="is an empty repository"):
            _fetch(where, None, tmp_path / f"d{len(where)}")


def test_a_ref_cache_asks_each_repository_once(history, git_server: GitServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from lemon_core.source_kit import RefCache

    class Scope:
        pass

    cache, scope = RefCache(), Scope()
    git_server.requests.clear()
    refs = ["v1", "v2", None, "main", "dev"] * 4
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda r: upstream_commit(history["url"], r, cache=cache,
                                                        scope=scope), refs))
    assert found[:5] == [history["second"], history["third"], history["third"],
                         history["third"], history["dev"]]
    assert len(git_server.requests) == 1
    upstream_commit(history["url"], None, cache=cache, scope=Scope())  # a new command asks
    upstream_commit(history["url"], None, cache=cache)  # no scope: never shared
    assert len(git_server.requests) == 3


@pytest.mark.parametrize("where", ["objects/pack/pack-x.idx", "packed-refs",
                                   "refs/heads/fifo", "objects/info/alternates"])
def test_a_file_url_with_a_fifo_where_dulwich_reads_is_refused_not_waited_on(
        tmp_path: Path, where: str) -> None:
    """issue 17 §4: dulwich opens these by name, blocking; a FIFO there hung the fetch."""
    import threading

    build_repo(tmp_path / "r", {"SKILL.md": SKILL})
    fifo = tmp_path / "r" / where
    fifo.parent.mkdir(parents=True, exist_ok=True)
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            _fetch(f"file://{tmp_path / 'r'}", None, tmp_path / "dest")
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():  # release the blocked open so the thread can end
        with open(fifo, "wb"):
            pass
        thread.join(5)
        pytest.fail(f"the fetch blocked on the FIFO at {where}")
    assert isinstance(outcome[0], GitSourceError)
    assert "which is not a regular file" in str(outcome[0]) and where in str(outcome[0])
