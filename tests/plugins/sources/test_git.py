"""The git source: its three router positions, parse, fetch and upstream over real servers,
and `lemon skill install` of a git URL through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from lemon_plugins.sources.git import SOURCES

from lemon_core.errors import UsageError
from lemon_core.install import router
from lemon_core.source_kit import GitSourceError
from lemon_core.source_kit.fetch import FULL_HISTORY_NOTE
from tests.gitserver import GitServer, build_repo, commit

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\nBody.\n"
LEMON = str(Path(sys.executable).parent / "lemon")


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server



def _parse(identifier: str):  # type: ignore[no-untyped-def]
    for source in sorted(SOURCES, key=lambda s: s.order):
        ref = source.parse(identifier)
        if ref is not None:
            return source, ref
    return None, None


@pytest.mark.parametrize(("identifier", "position", "canonical", "name", "sub", "rev"), [
    ("git+https://h.example/o/repo.git@v1#subdirectory=skills/a", "git",
     "https://h.example/o/repo.git", "a", "skills/a", "v1"),
    ("git+ssh://git@h.example/o/repo.git", "git", "ssh://git@h.example/o/repo.git", "repo",
     None, None),
    ("git+file:///srv/repo.git@main", "git", "file:///srv/repo.git", "repo", None, "main"),
    ("git@h.example:o/repo.git@abc1234", "git-ssh", "git@h.example:o/repo.git", "repo", None,
     "abc1234"),
    ("https://h.example/o/repo", "git-url", "https://h.example/o/repo", "repo", None, None),
    ("http://me:pw@h.example/o/repo.git@dev", "git-url", "http://h.example/o/repo.git", "repo",
     None, "dev"),
    ("file:///srv/skills.git#subdirectory=x/y", "git-url", "file:///srv/skills.git", "y",
     "x/y", None),
])
def test_parse(identifier, position, canonical, name, sub, rev) -> None:
    source, ref = _parse(identifier)
    assert source is not None and source.name == position
    assert ref.source == "git" and ref.identifier == identifier
    assert (ref.canonical_id, ref.name, ref.subpath, ref.revision) == (canonical, name, sub, rev)
    assert source.trust_level(ref) == "community"


@pytest.mark.parametrize("identifier", ["gh:o/r", "./skill", "/abs/skill", "~/x",
                                        "official/cat/name", "hermes:skills/a/b", "builtin"])
def test_other_forms_are_not_claimed(identifier: str) -> None:
    assert _parse(identifier) == (None, None)


def test_a_malformed_git_identifier_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unsupported git URL scheme"):
        _parse("git+git://h.example/o/r.git")
    with pytest.raises(UsageError, match="invalid git ref"):
        _parse("https://h.example/o/r.git@-oops")


def test_the_installed_sources_route_by_order(make_ctx) -> None:
    ctx = make_ctx()
    expected = {"git+https://h.example/r.git": ("git", 10), "git@h.example:o/r.git": ("git-ssh", 20),
                "https://h.example/o/r.git": ("git-url", 50), "gh:o/r": ("gh", 30)}
    for identifier, (name, order) in expected.items():
        source, _ = router.resolve(identifier, ctx)
        assert (source.name, source.order) == (name, order)
    forms = router.accepted_forms(router.sources_of(ctx))
    assert any(form.startswith("git+<url>") for form in forms)


@pytest.fixture
def served(tmp_path: Path, git_server: GitServer):  # type: ignore[no-untyped-def]
    repo, first = build_repo(tmp_path / "demo.git", {"SKILL.md": SKILL, "v.txt": "1"})
    second = commit(repo, {"SKILL.md": SKILL, "v.txt": "2"}, tag="v2")
    return git_server.add("o/demo.git", repo), first, second


def test_fetch_returns_the_exact_commit_and_a_pinned_revision_wins(served, tmp_path: Path,
                                                                   make_ctx) -> None:
    url, first, second = served
    source, ref = _parse(f"git+{url}@v2")
    (tmp_path / "a").mkdir()
    assert source.fetch(ref, tmp_path / "a", make_ctx(), None).revision == second
    assert source.upstream_hash(ref, make_ctx()) == second
    pinned = attrs.evolve(ref, revision=first)  # how sync reproduces a lockfile's commit
    (tmp_path / "b").mkdir()
    result = source.fetch(pinned, tmp_path / "b", make_ctx(), None)
    assert result.revision == first and (tmp_path / "b" / "v.txt").read_text() == "1"
    assert result.notes == (FULL_HISTORY_NOTE,)


def test_progress_is_reported(served, tmp_path: Path, make_ctx) -> None:
    url, _, _ = served
    source, ref = _parse(url)
    seen: list[tuple[int, int | None, str]] = []
    (tmp_path / "a").mkdir()
    source.fetch(ref, tmp_path / "a", make_ctx(), lambda d, t, m: seen.append((d, t, m)))
    assert seen[0][0] == 0 and seen[-1][:2] == (3, 3)


def test_a_missing_ref_fails_cleanly(served, tmp_path: Path, make_ctx) -> None:
    url, _, _ = served
    source, ref = _parse(f"{url}@nope")
    (tmp_path / "a").mkdir()
    with pytest.raises(GitSourceError, match="no branch or tag 'nope'"):
        source.fetch(ref, tmp_path / "a", make_ctx(), None)


def _lemon(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
               "LEMON_CACHE_DIR": str(home / ".cache" / "lemon"), **env}
    return subprocess.run([LEMON, *args], env=environ, cwd=home, capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.slow
def test_install_from_a_git_url_through_the_cli(served, tmp_path: Path) -> None:
    url, _, second = served
    home = tmp_path / "home"
    home.mkdir()
    proc = _lemon(home, "skill", "install", f"git+{url}@v2", "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    installed = json.loads(proc.stdout)["installed"][0]
    assert installed["revision"] == second and installed["trust"] == "community"
    folder = home / ".lemon" / "agent" / "skill" / "demo"
    assert sorted(os.listdir(folder)) == ["SKILL.md", "v.txt"]
    lock = json.loads((home / ".lemon" / "agent" / "skills.lock.json").read_text())
    record = lock["skills"]["demo"]
    assert record["resolved_commit"] == second and record["requested_ref"] == "v2"
    assert record["source_id"] == url


@pytest.mark.slow
@pytest.mark.parametrize("suffix", ["@nope", "@" + "0" * 40])
def test_a_failed_git_install_changes_nothing(served, tmp_path: Path, suffix: str) -> None:
    url, _, _ = served
    home = tmp_path / "home"
    home.mkdir()
    proc = _lemon(home, "skill", "install", url + suffix, "--approve")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    agent = home / ".lemon" / "agent"
    assert not (agent / "skill" / "demo").exists()
    assert not (agent / "skills.lock.json").exists()
    leftovers = list(agent.rglob("*")) if agent.exists() else []
    assert [p for p in leftovers if p.is_file()] == []


def test_upstream_hash_asks_a_repository_once_for_many_skills(served, make_ctx,
                                                              git_server: GitServer) -> None:
    url, _, second = served
    source, _ = _parse(url)
    git_server.requests.clear()
    ctx = make_ctx()  # one command
    for sub in ("a", "b", "c"):
        _, ref = _parse(f"{url}@v2#subdirectory={sub}")
        assert source.upstream_hash(ref, ctx) == second
    assert len(git_server.requests) == 1
    source.upstream_hash(ref, make_ctx())  # the next command asks again
    assert len(git_server.requests) == 2


def test_a_password_in_the_url_is_used_but_never_recorded_or_printed(
        served, tmp_path: Path, git_server: GitServer) -> None:
    url, _, _ = served
    git_server.require_auth("alice", "s3cret-pw")
    home = tmp_path / "home"
    home.mkdir()
    with_password = url.replace("http://", "http://alice:s3cret-pw@")
    proc = _lemon(home, "skill", "install", with_password, "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    lock_text = (home / ".lemon" / "agent" / "skills.lock.json").read_text()
    assert "s3cret-pw" not in lock_text + proc.stdout + proc.stderr
    record = json.loads(lock_text)["skills"]["demo"]
    assert record["source_kind"] == "git" and record["identifier"] == url


@pytest.mark.slow
def test_update_of_an_install_whose_url_held_a_password(tmp_path: Path,
                                                        git_server: GitServer) -> None:
    repo, _ = build_repo(tmp_path / "private.git", {"SKILL.md": SKILL, "v.txt": "1"})
    url = git_server.add("o/private.git", repo)
    git_server.require_auth("alice", "s3cret-pw")
    home = tmp_path / "home"
    home.mkdir()
    proc = _lemon(home, "skill", "install", url.replace("http://", "http://alice:s3cret-pw@"),
                  "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    (note,) = [n for n in json.loads(proc.stdout)["installed"][0]["notes"] if "netrc" in n]
    assert "not recorded" in note
    newer = commit(repo, {"SKILL.md": SKILL, "v.txt": "2"})
    seen = proc.stdout + proc.stderr

    proc = _lemon(home, "skill", "update", "demo", "--approve")  # the lockfile has no password
    assert proc.returncode == 1 and proc.stdout == ""
    assert "lemon had none to send" in proc.stderr and "never records a password" in proc.stderr
    assert "machine 127.0.0.1 login USER password SECRET" in proc.stderr
    assert "~/.netrc" in proc.stderr and proc.stderr.count("\n") == 1
    seen += proc.stdout + proc.stderr

    (home / ".netrc").write_text("machine 127.0.0.1 login alice password wrong\n")
    proc = _lemon(home, "skill", "update", "demo", "--approve")
    assert proc.returncode == 1 and "refused the credentials lemon sent" in proc.stderr
    seen += proc.stdout + proc.stderr

    elsewhere = tmp_path / "netrc"
    elsewhere.write_text("machine 127.0.0.1 login alice password s3cret-pw\n")
    proc = _lemon(home, "skill", "update", "demo", "--approve", "--json", NETRC=str(elsewhere))
    assert proc.returncode == 0, proc.stderr
    (updated,) = json.loads(proc.stdout)["updated"]
    assert updated["action"] == "updated" and updated["revision"] == newer
    assert (home / ".lemon" / "agent" / "skill" / "demo" / "v.txt").read_text() == "2"
    seen += proc.stdout + proc.stderr
    lock_text = (home / ".lemon" / "agent" / "skills.lock.json").read_text()
    assert "s3cret-pw" not in seen + lock_text and "wrong" not in seen
    assert json.loads(lock_text)["skills"]["demo"]["identifier"] == url


@pytest.mark.slow
def test_a_file_url_install_reads_only_the_chosen_folder(tmp_path: Path) -> None:
    """issue 17 §4 through the real CLI and default caps: 200 MiB of blobs and an unreadable
    object outside ``#subdirectory=`` do not stop the install (nothing of them is read); a
    65 MiB blob inside is refused by the 64 MiB per-file cap, naming it, and nothing is
    installed."""
    from dulwich.objects import Blob

    from tests.gitserver import Zeros

    good = "---\nname: good\ndescription: Use when testing bounded fetches.\n---\nBody.\n"
    repo, _ = build_repo(tmp_path / "r", {
        "skills/good/SKILL.md": good, "big/a.bin": Zeros(100 * 1024 * 1024),
        "big/b.bin": Zeros(100 * 1024 * 1024 + 1), "big/broken.txt": "unreadable",
        "skills/fat/SKILL.md": good.replace("good", "fat"),
        "skills/fat/zeros.bin": Zeros(65 * 1024 * 1024)})
    sha = Blob.from_string(b"unreadable").id.decode()
    loose = Path(repo.object_store.path) / sha[:2] / sha[2:]
    loose.unlink()
    loose.mkdir()  # reading it fails at once: the old fetch read every object and failed here
    home = tmp_path / "home"
    home.mkdir()
    proc = _lemon(home, "skill", "install", f"git+file://{tmp_path / 'r'}"
                  "#subdirectory=skills/good", "--approve", "--json")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(home / ".lemon" / "agent" / "skill" / "good")) == ["SKILL.md"]
    proc = _lemon(home, "skill", "install", f"git+file://{tmp_path / 'r'}"
                  "#subdirectory=skills/fat", "--approve")
    assert proc.returncode == 1
    assert ("the file skills/fat/zeros.bin is 65 MiB (over the 64 MiB a fetched file may "
            "hold)") in proc.stderr
    assert not (home / ".lemon" / "agent" / "skill" / "fat").exists()
