"""The gh source: gh:<owner>/<repo>[/<path>][@<ref>] as git over a configurable base URL,
GITHUB_TOKEN sent as credentials and never shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from lemon_plugins.sources.gh import GhSource, base_url

from lemon_core.errors import UsageError
from lemon_core.source_kit import GitSourceError
from tests.gitserver import GitServer, build_repo, commit

SKILL = "---\nname: {name}\ndescription: Use when testing.\n---\nBody.\n"
TOKEN = "ghp_0123456789abcdefSECRET"
LEMON = str(Path(sys.executable).parent / "lemon")


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server



@pytest.mark.parametrize(("identifier", "canonical", "name", "sub", "rev"), [
    ("gh:octo/skills", "octo/skills", "skills", None, None),
    ("gh:octo/skills.git@v1.0", "octo/skills", "skills", None, "v1.0"),
    ("gh:octo/skills/tools/pdf@main", "octo/skills", "pdf", "tools/pdf", "main"),
    ("  gh:octo/skills/pdf  ", "octo/skills", "pdf", "pdf", None),
])
def test_parse(identifier, canonical, name, sub, rev) -> None:
    ref = GhSource().parse(identifier)
    assert ref is not None and ref.source == "gh"
    assert (ref.canonical_id, ref.name, ref.subpath, ref.revision) == (canonical, name, sub, rev)
    assert GhSource().trust_level(ref) == "community"


@pytest.mark.parametrize("identifier", ["gh:octo", "gh:-x/r", "gh:o/..", "gh:o/r/../etc",
                                        "gh:o/r@a..b", "gh:o w/r"])
def test_malformed(identifier: str) -> None:
    with pytest.raises(UsageError):
        GhSource().parse(identifier)


def test_not_claimed() -> None:
    assert GhSource().parse("https://github.com/o/r") is None


def test_base_url(make_ctx) -> None:
    assert base_url(make_ctx()) == "https://github.com"
    assert base_url(make_ctx(LEMON_GITHUB_URL="https://ghe.example/")) == "https://ghe.example"
    with pytest.raises(UsageError, match="LEMON_GITHUB_URL"):
        base_url(make_ctx(LEMON_GITHUB_URL="ftp://x"))


@pytest.fixture
def private(tmp_path: Path, git_server: GitServer):  # type: ignore[no-untyped-def]
    repo, first = build_repo(tmp_path / "r", {"SKILL.md": SKILL.format(name="root"),
                                              "tools/pdf/SKILL.md": SKILL.format(name="pdf")})
    second = commit(repo, {"SKILL.md": SKILL.format(name="root"),
                           "tools/pdf/SKILL.md": SKILL.format(name="pdf") + "v2"}, tag="v2")
    git_server.add("octo/skills.git", repo)
    git_server.require_auth("x-access-token", TOKEN)
    return git_server, first, second


def test_fetch_with_the_token(private, tmp_path: Path, make_ctx) -> None:
    server, _, second = private
    ctx = make_ctx(LEMON_GITHUB_URL=server.url, GITHUB_TOKEN=TOKEN)
    ref = GhSource().parse("gh:octo/skills/tools/pdf@v2")
    (tmp_path / "a").mkdir()
    assert GhSource().fetch(ref, tmp_path / "a", ctx, None).revision == second
    assert os.listdir(tmp_path / "a") == ["SKILL.md"]
    assert GhSource().upstream_hash(GhSource().parse("gh:octo/skills"), ctx) == second
    assert all(header for _, _, header in server.requests)


def test_without_the_token_a_clear_error(private, tmp_path: Path, make_ctx) -> None:
    server, _, _ = private
    ref = GhSource().parse("gh:octo/skills")
    (tmp_path / "a").mkdir()
    with pytest.raises(GitSourceError, match="set GITHUB_TOKEN"):
        GhSource().fetch(ref, tmp_path / "a", make_ctx(LEMON_GITHUB_URL=server.url), None)


def test_the_token_is_not_sent_over_plain_http_off_loopback(make_ctx) -> None:
    from lemon_core.source_kit import token_auth

    assert token_auth("http://ghe.example/o/r.git", TOKEN) is None


def _lemon(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
               "LEMON_CACHE_DIR": str(home / ".cache" / "lemon"), **env}
    return subprocess.run([LEMON, *args], env=environ, cwd=home, capture_output=True,
                          text=True, timeout=60, check=False)


def test_install_through_the_cli_never_prints_the_token(private, tmp_path: Path) -> None:
    server, _, second = private
    home = tmp_path / "home"
    home.mkdir()
    env = {"LEMON_GITHUB_URL": server.url, "GITHUB_TOKEN": TOKEN, "LEMON_DEBUG": ""}
    ok = _lemon(home, "skill", "install", "gh:octo/skills/tools/pdf@v2", "--approve", "--json",
                **env)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["installed"][0]["revision"] == second
    bad = _lemon(home, "skill", "install", "gh:octo/skills@nope", "--approve", **env)
    assert bad.returncode == 1 and "no branch or tag 'nope'" in bad.stderr
    wrong = _lemon(home, "skill", "install", "gh:octo/other", "--approve", **env)
    assert wrong.returncode == 1
    lock = (home / ".lemon" / "agent" / "skills.lock.json").read_text()
    for text in (ok.stdout, ok.stderr, bad.stdout, bad.stderr, wrong.stdout, wrong.stderr, lock):
        assert TOKEN not in text
