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

pytestmark = pytest.mark.integration  # starts processes or loopback servers

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


def test_without_a_token_the_netrc_entry_of_the_host(private, tmp_path: Path,
                                                     make_ctx, home: Path) -> None:
    server, _, second = private
    ctx = make_ctx(LEMON_GITHUB_URL=server.url)
    (home / ".netrc").write_text(f"machine 127.0.0.1 login x-access-token password {TOKEN}\n")
    ref = GhSource().parse("gh:octo/skills")
    assert GhSource().upstream_hash(ref, ctx) == second
    (tmp_path / "a").mkdir()
    assert GhSource().fetch(ref, tmp_path / "a", ctx, None).revision == second
    (home / ".netrc").write_text("machine 127.0.0.1 login x-access-token password nope\n")
    (tmp_path / "b").mkdir()
    with pytest.raises(GitSourceError, match="refused the credentials") as caught:
        GhSource().fetch(ref, tmp_path / "b", make_ctx(LEMON_GITHUB_URL=server.url), None)
    assert "nope" not in str(caught.value)


def test_the_token_is_not_sent_over_plain_http_off_loopback(make_ctx) -> None:
    from lemon_core.source_kit import token_auth

    assert token_auth("http://ghe.example/o/r.git", TOKEN) is None


def _lemon(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
               "LEMON_CACHE_DIR": str(home / ".cache" / "lemon"), **env}
    return subprocess.run([LEMON, *args], env=environ, cwd=home, capture_output=True,
                          text=True, timeout=60, check=False)


@pytest.mark.slow
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


class _Api:
    """A GitHub-shaped search API on 127.0.0.1: records each request, answers ``answer``."""

    def __init__(self, answer: object) -> None:
        import http.server
        import threading

        api = self
        self.answer = answer
        self.seen: list[tuple[str, str | None]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                api.seen.append((self.path, self.headers.get("Authorization")))
                body = json.dumps(api.answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_search_asks_for_the_topic_and_scores_hits(make_ctx) -> None:
    from urllib.parse import parse_qs, urlsplit

    api = _Api({"items": [
        {"full_name": "a/pdf-tools", "description": "PDF skills", "stargazers_count": 500},
        {"full_name": "b/misc", "description": "has a pdf helper", "stargazers_count": 3},
        {"full_name": "c/odd", "description": None, "stargazers_count": "many"},
        {"full_name": "not-a-repo"}, "junk"]})
    try:
        assert GhSource().search("pdf", make_ctx(LEMON_GITHUB_API_URL=api.url), 5) == []
        assert api.seen == []  # off unless asked for
        ctx = make_ctx(LEMON_GITHUB_API_URL=api.url, GITHUB_TOKEN=TOKEN, LEMON_GITHUB_SEARCH="1")
        hits = GhSource().search("pdf", ctx, 5)
    finally:
        api.close()
    assert [(h.identifier, h.score) for h in hits] == [("gh:a/pdf-tools", 170.0),
                                                       ("gh:b/misc", 23.0), ("gh:c/odd", 0.0)]
    assert hits[0].name == "pdf-tools" and hits[0].source == "gh"
    path, auth = api.seen[0]
    query = parse_qs(urlsplit(path).query)
    assert urlsplit(path).path == "/search/repositories"
    assert query["q"] == ["topic:lemon-skill pdf in:name,description,readme"]
    assert query["sort"] == ["stars"] and query["per_page"] == ["5"]
    assert auth == f"Bearer {TOKEN}"


def test_search_api_base(make_ctx) -> None:
    from lemon_plugins.sources.gh import api_url

    assert api_url(make_ctx()) == "https://api.github.com"
    assert api_url(make_ctx(LEMON_GITHUB_URL="https://ghe.example")) == \
        "https://ghe.example/api/v3"


def test_a_malformed_search_answer_is_an_error(make_ctx) -> None:
    from lemon_core.errors import LemonError

    api = _Api({"message": "rate limited"})
    try:
        with pytest.raises(LemonError, match="answered without 'items'"):
            GhSource().search("x", make_ctx(LEMON_GITHUB_API_URL=api.url,
                                            LEMON_GITHUB_SEARCH="1"), 3)
    finally:
        api.close()
