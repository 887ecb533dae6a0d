"""Credentials: sent to their own origin only, never over plain http off loopback, never shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lemon_core.source_kit import Auth, GitSourceError, fetch_tree, token_auth
from tests.gitserver import GitServer, build_repo

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\n"
TOKEN = "ghp_s3cretTOKENvalue"


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server



def test_token_auth_only_over_https_or_loopback() -> None:
    assert token_auth("https://github.com/o/r.git", TOKEN) == Auth("x-access-token", TOKEN)
    assert token_auth("http://127.0.0.1:9/o/r.git", TOKEN) is not None
    assert token_auth("http://[::1]:9/o/r.git", TOKEN) is not None
    assert token_auth("http://mirror.example/o/r.git", TOKEN) is None
    assert token_auth("https://github.com/o/r.git", None) is None
    assert TOKEN not in repr(Auth("x-access-token", TOKEN))


def test_a_private_repository_needs_the_token(tmp_path: Path, git_server: GitServer) -> None:
    repo, sha = build_repo(tmp_path / "r", {"SKILL.md": SKILL})
    url = git_server.add("o/private.git", repo)
    git_server.require_auth("x-access-token", TOKEN)
    (tmp_path / "a").mkdir()
    with pytest.raises(GitSourceError, match="asked for credentials"):
        fetch_tree(url, None, tmp_path / "a")
    (tmp_path / "b").mkdir()
    result = fetch_tree(url, None, tmp_path / "b", auth=token_auth(url, TOKEN), secrets=(TOKEN,))
    assert result.commit == sha
    assert any(header for _, _, header in git_server.requests)


def test_credentials_in_a_url_are_used_and_never_shown(tmp_path: Path,
                                                       git_server: GitServer) -> None:
    repo, sha = build_repo(tmp_path / "r", {"SKILL.md": SKILL})
    git_server.add("o/private.git", repo)
    git_server.require_auth("me", "pw-s3cret")
    host = git_server.url.split("://", 1)[1]
    (tmp_path / "a").mkdir()
    assert fetch_tree(f"http://me:pw-s3cret@{host}/o/private.git", None,
                      tmp_path / "a").commit == sha
    (tmp_path / "b").mkdir()
    with pytest.raises(GitSourceError) as info:
        fetch_tree(f"http://me:pw-s3cret@{host}/o/private.git", "nope", tmp_path / "b")
    assert "pw-s3cret" not in str(info.value) and "me:" not in str(info.value)


def test_a_redirect_never_carries_the_token_away(tmp_path: Path, git_server: GitServer) -> None:
    repo, _ = build_repo(tmp_path / "r", {"SKILL.md": SKILL})
    with GitServer() as other:
        other.add("o/r.git", repo)
        git_server.redirect("o/r.git", other.url + "/o/r.git")
        (tmp_path / "a").mkdir()
        url = git_server.url + "/o/r.git"
        with pytest.raises(GitSourceError) as info:
            fetch_tree(url, None, tmp_path / "a", auth=token_auth(url, TOKEN), secrets=(TOKEN,))
        assert other.requests == []
    assert TOKEN not in str(info.value)


@pytest.fixture(params=["http.client", "urllib3"])
def client_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both HTTP clients: lemon's on http.client, and dulwich's urllib3 one that a proxy
    variable selects (here bypassed for loopback by no_proxy, so it connects directly)."""
    for name in ("https_proxy", "http_proxy", "all_proxy", "HTTPS_PROXY", "HTTP_PROXY",
                 "ALL_PROXY", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    if request.param == "urllib3":
        monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
        monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return str(request.param)


def test_each_client_keeps_lemons_rules(tmp_path: Path, git_server: GitServer,
                                        client_kind: str) -> None:
    from lemon_core.source_kit.connect import open_client

    repo, sha = build_repo(tmp_path / "r", {"SKILL.md": SKILL})
    url = git_server.add("o/private.git", repo)
    client, _ = open_client(url)
    assert type(client).__name__ == {"http.client": "StdlibHttpGitClient",
                                     "urllib3": "Urllib3HttpGitClient"}[client_kind]
    git_server.require_auth("x-access-token", TOKEN)
    git_server.redirect("o/renamed.git", git_server.url + "/o/private.git")  # same host
    (tmp_path / "a").mkdir()
    moved = git_server.url + "/o/renamed.git"
    assert fetch_tree(moved, None, tmp_path / "a", auth=token_auth(moved, TOKEN),
                      secrets=(TOKEN,)).commit == sha
    (tmp_path / "b").mkdir()
    with pytest.raises(GitSourceError, match="asked for credentials"):
        fetch_tree(url, None, tmp_path / "b")
    with GitServer() as other:
        other.add("o/r.git", repo)
        git_server.redirect("o/away.git", other.url + "/o/r.git")
        (tmp_path / "c").mkdir()
        away = git_server.url + "/o/away.git"
        with pytest.raises(GitSourceError, match="redirected to another host") as info:
            fetch_tree(away, None, tmp_path / "c", auth=token_auth(away, TOKEN),
                       secrets=(TOKEN,))
        assert other.requests == [] and TOKEN not in str(info.value)
