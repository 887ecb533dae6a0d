"""The ``hermes`` source against a Hermes-shaped repository served on 127.0.0.1, and against a
local checkout."""

from __future__ import annotations

import os

import attrs
import pytest
from lemon_plugins.sources import hermes

from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.tree import scan_tree
from lemon_core.protocols import SkillSource
from lemon_core.testing import inline_plugins
from tests.registry_server import Answer, git_blob_sha
from tests.registry_server import hermes as serve_hermes

pytestmark = pytest.mark.integration  # starts processes or loopback servers

COMMIT = "c0ffee" * 6 + "c0ff"


def skill_md(name: str, description: str) -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n---\n\nBody of {name}.\n".encode()


FILES = {
    "README.md": b"# Hermes\n",
    "skills/research/arxiv/SKILL.md": skill_md("arxiv", "Search arXiv papers."),
    "skills/research/arxiv/scripts/fetch.py": b"print('hi')\n",
    "skills/github/pr-review/SKILL.md": skill_md("pr-review", "Review pull requests."),
    "optional-skills/research/ahnenforschung/de-daten/SKILL.md":
        skill_md("de-daten", "Genealogy records in German archives."),
    "optional-skills/yuanbao/SKILL.md": skill_md("yuanbao", "Yuanbao assistant."),
    "optional-skills/finance/ledger/SKILL.md": skill_md("ledger", "Keep a plain-text ledger."),
    "optional-skills/finance/ledger/references/guide.md": b"# Guide\n",
    "skills/SKILL.md": b"not a skill: no folder level\n",
    "tools/other/SKILL.md": b"outside every collection\n",
}


@pytest.fixture
def repo(web_server, make_ctx):
    env = serve_hermes(web_server, FILES, commit=COMMIT)
    return web_server, make_ctx(**env)


@pytest.fixture
def source():
    return hermes.HermesSource()


def test_registers_at_router_position_40():
    sources = inline_plugins(hermes).sources()
    assert [(s.name, s.order) for s in sources] == [("hermes", 40)]
    assert isinstance(sources[0], SkillSource)


@pytest.mark.parametrize(("identifier", "canonical", "name"), [
    ("hermes:optional/research/arxiv", "hermes:optional/research/arxiv", "arxiv"),
    ("hermes:bundled/research/arxiv", "hermes:bundled/research/arxiv", "arxiv"),
    ("hermes:skills/github/pr-review", "hermes:bundled/github/pr-review", "pr-review"),
    ("hermes:optional-skills/a/b/c", "hermes:optional/a/b/c", "c"),
    ("hermes:optional/yuanbao", "hermes:optional/yuanbao", "yuanbao"),
    ("hermes:bundled/x/v1.2_beta-3", "hermes:bundled/x/v1.2_beta-3", "v1.2_beta-3")])
def test_parse(source, identifier, canonical, name):
    ref = source.parse(identifier)
    assert (ref.source, ref.canonical_id, ref.name) == ("hermes", canonical, name)


@pytest.mark.parametrize(("identifier", "why"), [
    ("hermes:community/x/y", "collection must be 'bundled' or 'optional'"),
    ("hermes:optional", "a skill is missing"),
    ("hermes:optional/", "a skill is missing"),
    ("hermes:optional/research/../../etc", "'..' steps"),
    ("hermes:optional/./x", "'.' steps"),
    ("hermes:optional//x", "a part is empty"),
    ("hermes:optional/x/y\x1b]0;t\x07", "U+001B"),
    ("hermes:optional/x/\u202eevil", "U+202E"),
    ("hermes:optional/x/a b", "'a b'")])
def test_parse_refuses_hostile_ids_with_reasons(source, identifier, why):
    with pytest.raises(UsageError) as info:
        source.parse(identifier)
    assert why in str(info.value)


def test_other_identifiers_are_not_hermes(source):
    assert source.parse("gh:a/b") is None
    assert source.parse("optional/research/arxiv") is None


def test_trust_is_official(source):
    assert source.trust_level(source.parse("hermes:optional/yuanbao")) == "official"


def test_catalog_lists_every_skill_sorted_without_downloads(source, repo):
    server, ctx = repo
    rows = source.catalog(ctx)
    assert [(r["collection"], r["category"], r["key"], r["id"]) for r in rows] == [
        ("bundled", "github", "pr-review", "hermes:bundled/github/pr-review"),
        ("bundled", "research", "arxiv", "hermes:bundled/research/arxiv"),
        ("optional", "finance", "ledger", "hermes:optional/finance/ledger"),
        ("optional", "other", "yuanbao", "hermes:optional/yuanbao"),
        ("optional", "research/ahnenforschung", "de-daten",
         "hermes:optional/research/ahnenforschung/de-daten"),
    ]
    assert rows[1]["path"] == "skills/research/arxiv" and rows[1]["description"] == ""
    assert not any(r.startswith("/raw/") for r in server.requests)  # no file downloaded
    assert len(server.requests) == 2  # one commit lookup, one listing


def test_catalog_filters_and_details(source, repo):
    _, ctx = repo
    assert [r["key"] for r in source.catalog(ctx, category="research")] == ["arxiv"]
    assert [r["key"] for r in source.catalog(ctx, collection="optional", category="finance")] == [
        "ledger"]
    assert [r["key"] for r in source.catalog(ctx, collection="skills")] == ["pr-review", "arxiv"]
    detailed = source.catalog(ctx, query="german", details=True)
    assert [(r["key"], r["description"]) for r in detailed] == [
        ("de-daten", "Genealogy records in German archives.")]
    with pytest.raises(UsageError, match="unknown Hermes collection"):
        source.catalog(ctx, collection="community")


def test_fetch_downloads_only_that_skill_checked_against_the_listing(source, repo, tmp_path):
    server, ctx = repo
    dest = tmp_path / "stage"
    dest.mkdir()
    seen = []
    result = source.fetch(source.parse("hermes:bundled/research/arxiv"), dest, ctx,
                          lambda done, total, what: seen.append((done, total, what)))
    assert result.revision == COMMIT
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "SKILL.md", "scripts/fetch.py"]
    raw = sorted(r for r in server.requests if r.startswith("/raw/"))
    assert raw == [f"/raw/{COMMIT}/skills/research/arxiv/SKILL.md",
                   f"/raw/{COMMIT}/skills/research/arxiv/scripts/fetch.py"]
    assert seen[-1] == (2, 2, "scripts/fetch.py")


def test_a_skill_not_in_the_catalog(source, repo, tmp_path):
    _, ctx = repo
    with pytest.raises(LemonError, match="is not in the catalog at commit"):
        source.fetch(source.parse("hermes:optional/nope/x"), tmp_path / "s", ctx, None)


def test_content_that_does_not_match_its_blob_id_is_refused(source, repo, tmp_path):
    server, ctx = repo
    path = f"/raw/{COMMIT}/skills/github/pr-review/SKILL.md"
    server.route(path, Answer(200, skill_md("pr-review", "Tampered.")))
    with pytest.raises(LemonError, match="does not match the repository listing"):
        source.fetch(source.parse("hermes:bundled/github/pr-review"), tmp_path / "s", ctx, None)


def test_hostile_listings_are_refused(source, web_server, make_ctx, tmp_path):
    files = {"skills/x/evil/SKILL.md": skill_md("evil", "x"),
             "skills/x/evil/big.bin": b"",
             "skills/x/evil/..\\up": b""}
    env = serve_hermes(web_server, files, commit=COMMIT)
    ctx = make_ctx(**env)
    with pytest.raises(LemonError, match="refused the file name"):
        source.fetch(source.parse("hermes:bundled/x/evil"), tmp_path / "s", ctx, None)


def test_a_listed_file_over_the_cap_is_refused_before_any_download(source, web_server,
                                                                   make_ctx, tmp_path):
    from tests.registry_server import json_answer

    tree = [{"path": "skills/x/big/SKILL.md", "type": "blob", "mode": "100644",
             "sha": git_blob_sha(b"x"), "size": 1},
            {"path": "skills/x/big/huge.bin", "type": "blob", "mode": "100644", "sha": "0" * 40,
             "size": 1 << 30}]
    web_server.route(f"/api/git/trees/{COMMIT}?recursive=1", json_answer({"tree": tree}))
    ctx = make_ctx(LEMON_HERMES_API_URL=web_server.url + "/api",
                   LEMON_HERMES_RAW_URL=web_server.url + "/raw", LEMON_HERMES_REF=COMMIT)
    with pytest.raises(LemonError, match="huge.bin' is 1073741824 bytes"):
        source.fetch(source.parse("hermes:bundled/x/big"), tmp_path / "s", ctx, None)
    assert not any(r.startswith("/raw/") for r in web_server.requests)


def test_a_truncated_listing_points_at_a_checkout(source, web_server, make_ctx):
    from tests.registry_server import json_answer

    web_server.route(f"/api/git/trees/{COMMIT}?recursive=1",
                     json_answer({"tree": [], "truncated": True}))
    ctx = make_ctx(LEMON_HERMES_API_URL=web_server.url + "/api", LEMON_HERMES_REF=COMMIT)
    with pytest.raises(LemonError, match="LEMON_HERMES_REPO"):
        source.catalog(ctx)


def test_upstream_hash_covers_the_whole_folder(source, web_server, make_ctx):
    ctx = make_ctx(**serve_hermes(web_server, FILES, commit=COMMIT))
    ref = source.parse("hermes:optional/finance/ledger")
    before = source.upstream_hash(ref, ctx)
    changed = {**FILES, "optional-skills/finance/ledger/references/guide.md": b"# New guide\n"}
    fresh = hermes.HermesSource()  # no cached listing
    with type(web_server)() as other:
        ctx2 = make_ctx(**serve_hermes(other, changed, commit=COMMIT))
        after = fresh.upstream_hash(ref, ctx2)
    assert before and after and before != after
    assert source.upstream_hash(source.parse("hermes:optional/nope/x"), ctx) is None


def test_the_listing_is_asked_once_for_many_questions(source, repo):
    server, ctx = repo
    for identifier in ("hermes:bundled/research/arxiv", "hermes:optional/yuanbao"):
        source.upstream_hash(source.parse(identifier), ctx)
    source.catalog(ctx)
    assert len(server.requests) == 2


def test_search_matches_keys_and_fills_descriptions(source, repo):
    _, ctx = repo
    hits = source.search("arxiv", ctx, 5)
    assert [(h.identifier, h.name, h.description, h.source) for h in hits] == [
        ("hermes:bundled/research/arxiv", "arxiv", "Search arXiv papers.", "hermes")]
    assert [h.identifier for h in source.search("research", ctx, 1)] == [
        "hermes:bundled/research/arxiv"]


def test_an_unreachable_api_is_a_clear_error(source, make_ctx):
    ctx = make_ctx(LEMON_HERMES_API_URL="http://127.0.0.1:9/api")
    with pytest.raises(LemonError, match="hermes: GET .* cannot reach the server"):
        source.catalog(ctx)
    assert source.upstream_hash(source.parse("hermes:optional/yuanbao"), ctx) is None


def test_the_token_goes_only_to_api_github_com(make_ctx):
    assert hermes.settings(make_ctx(GITHUB_TOKEN="t0ken")).token == "t0ken"
    conf = hermes.settings(make_ctx(GITHUB_TOKEN="t0ken", LEMON_HERMES_API_URL="http://h.example"))
    assert conf.token is None
    assert "t0ken" not in repr(hermes.settings(make_ctx(GITHUB_TOKEN="t0ken")))


# -- a local checkout ------------------------------------------------------------------------


@pytest.fixture
def checkout(tmp_path, make_ctx):
    root = tmp_path / "hermes-agent"
    for path, data in FILES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    (root / ".git").mkdir()
    os.symlink("/etc", root / "skills" / "research" / "etc-link")
    return root, make_ctx(LEMON_HERMES_REPO=str(root), LEMON_HERMES_API_URL="http://127.0.0.1:9")


def test_a_checkout_replaces_the_network(source, checkout, tmp_path):
    _, ctx = checkout
    assert [r["id"] for r in source.catalog(ctx)] == [
        "hermes:bundled/github/pr-review", "hermes:bundled/research/arxiv",
        "hermes:optional/finance/ledger", "hermes:optional/yuanbao",
        "hermes:optional/research/ahnenforschung/de-daten"]
    detailed = source.catalog(ctx, query="ledger", details=True)
    assert detailed[0]["description"] == "Keep a plain-text ledger."
    dest = tmp_path / "stage"
    result = source.fetch(source.parse("hermes:optional/finance/ledger"), dest, ctx, None)
    assert result.revision is None
    assert (dest / "references" / "guide.md").read_bytes() == b"# Guide\n"
    ref = source.parse("hermes:optional/finance/ledger")
    from lemon_core.fsio.tree import bundle_hash

    assert source.upstream_hash(ref, ctx) == bundle_hash(dest, scan_tree(dest).entries)
    with pytest.raises(LemonError, match="has no optional-skills/x/y/SKILL.md"):
        source.fetch(source.parse("hermes:optional/x/y"), tmp_path / "t", ctx, None)


def test_fetch_uses_the_canonical_id(source, checkout, tmp_path):
    _, ctx = checkout
    ref = attrs.evolve(source.parse("hermes:skills/research/arxiv"))
    source.fetch(ref, tmp_path / "s", ctx, None)
    assert (tmp_path / "s" / "scripts" / "fetch.py").exists()


def test_links_are_written_last_as_links_and_submodules_left_out(source, web_server, make_ctx,
                                                                 tmp_path):
    from tests.registry_server import json_answer

    md = skill_md("linky", "x")
    tree = [{"path": "skills/x/linky/SKILL.md", "type": "blob", "mode": "100644",
             "sha": git_blob_sha(md), "size": len(md)},
            {"path": "skills/x/linky/data", "type": "blob", "mode": "120000",
             "sha": git_blob_sha(b"/etc/passwd"), "size": 11},
            {"path": "skills/x/linky/vendor", "type": "commit", "mode": "160000", "sha": "1" * 40}]
    web_server.route(f"/api/git/trees/{COMMIT}?recursive=1", json_answer({"tree": tree}))
    web_server.route(f"/raw/{COMMIT}/skills/x/linky/SKILL.md", Answer(200, md))
    web_server.route(f"/raw/{COMMIT}/skills/x/linky/data", Answer(200, b"/etc/passwd"))
    ctx = make_ctx(LEMON_HERMES_API_URL=web_server.url + "/api",
                   LEMON_HERMES_RAW_URL=web_server.url + "/raw", LEMON_HERMES_REF=COMMIT)
    dest = tmp_path / "s"
    result = source.fetch(source.parse("hermes:bundled/x/linky"), dest, ctx, None)
    assert os.readlink(dest / "data") == "/etc/passwd"
    assert result.notes == ("left out the submodule vendor (submodules are not fetched)",)
    assert [p.code for p in scan_tree(dest).problems] == ["escaping_link"]  # the pipeline refuses


def test_a_git_checkout_gives_its_head_commit_and_refuses_another_pin(source, tmp_path,
                                                                       make_ctx):
    from tests.gitserver import build_repo

    root = tmp_path / "hermes-agent"
    _repo, sha = build_repo(root, {"skills/a/x/SKILL.md": skill_md("x", "X.")}, bare=False)
    (root / "skills" / "a" / "x").mkdir(parents=True, exist_ok=True)
    (root / "skills" / "a" / "x" / "SKILL.md").write_bytes(skill_md("x", "X."))
    ctx = make_ctx(LEMON_HERMES_REPO=str(root))
    ref = source.parse("hermes:bundled/a/x")
    assert source.fetch(ref, tmp_path / "s", ctx, None).revision == sha
    with pytest.raises(LemonError, match="is at .*, not the asked"):
        source.fetch(attrs.evolve(ref, revision="1" * 40), tmp_path / "t", ctx, None)


# -- credentials from ~/.netrc (or $NETRC), as the git and gh sources take them ----------------

SECRET = "n3trc-Secr3t"


def _netrc(path, host="127.0.0.1", login="alice", password=SECRET):
    path.write_text(f"machine {host} login {login} password {password}\n")
    path.chmod(0o600)
    return path


def test_a_server_asking_for_credentials_gets_those_of_netrc(source, repo, tmp_path, home):
    server, ctx = repo
    server.auth = ("alice", SECRET)
    _netrc(home / ".netrc")
    dest = tmp_path / "stage"
    dest.mkdir()
    result = source.fetch(source.parse("hermes:bundled/research/arxiv"), dest, ctx, None)
    assert result.revision == COMMIT and (dest / "SKILL.md").is_file()
    assert server.authorizations and all(a and a.startswith("Basic ")
                                         for a in server.authorizations)


def test_netrc_is_the_file_NETRC_names_and_a_missing_entry_says_what_to_do(source, repo,
                                                                          tmp_path, home):
    server, ctx = repo
    server.auth = ("alice", SECRET)
    other = _netrc(tmp_path / "other-netrc")
    named = attrs.evolve(ctx, env={**ctx.env, "NETRC": str(other)})
    (tmp_path / "a").mkdir()
    source.fetch(source.parse("hermes:bundled/research/arxiv"), tmp_path / "a", named, None)
    with pytest.raises(LemonError, match=r"HTTP 401: the server asked for credentials and lemon "
                                         r"had none.*machine 127\.0\.0\.1 login USER"):
        source.fetch(source.parse("hermes:bundled/research/arxiv"), tmp_path / "b", ctx, None)


def test_wrong_netrc_credentials_are_refused_without_showing_them(source, repo, tmp_path, home):
    server, ctx = repo
    server.auth = ("alice", "another")
    _netrc(home / ".netrc")
    with pytest.raises(LemonError, match="refused the credentials lemon sent") as caught:
        source.fetch(source.parse("hermes:bundled/research/arxiv"), tmp_path / "s", ctx, None)
    assert SECRET not in str(caught.value)


def test_netrc_is_never_sent_over_plain_http_to_another_host(home, make_ctx):
    from lemon_core.source_kit.web import _request

    _netrc(home / ".netrc", host="skills.example")
    ctx = make_ctx()
    assert "Authorization" not in _request("http://skills.example/x", {}, ctx)[1]
    assert "Authorization" in _request("https://skills.example/x", {}, ctx)[1]
    token = {"Authorization": "Bearer t0ken"}  # a request with its own credentials keeps them
    assert _request("https://skills.example/x", token, ctx)[1]["Authorization"] == "Bearer t0ken"


@pytest.mark.slow
def test_a_cli_install_with_netrc_never_prints_the_password(repo, home, tmp_path):
    import json
    import subprocess
    import sys

    server, ctx = repo
    server.auth = ("alice", SECRET)
    _netrc(home / ".netrc")
    env = {**os.environ, **ctx.env, "HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", "from lemon_core.cli import main; main()",
                           "skill", "install", "hermes:bundled/research/arxiv", "--approve",
                           "--json"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["installed"][0]["key"] == "arxiv"
    lock = (home / ".lemon" / "agent" / "skills.lock.json").read_text()
    assert SECRET not in done.stdout + done.stderr + lock
