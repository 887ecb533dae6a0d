"""The ``registry`` source against a registry served on 127.0.0.1 (tests/registry_server.py)."""

from __future__ import annotations

import pytest
from lemon_plugins.sources import registry

from lemon_core.errors import LemonError, UsageError
from lemon_core.protocols import SkillSource
from lemon_core.testing import inline_plugins
from tests.registry_server import Answer, json_answer
from tests.registry_server import registry as serve_registry

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SOURCE = registry.RegistrySource()
COMMIT = "ab" * 20
SKILLS = {
    "official/devops/k8s-rollout": {"description": "Roll out Kubernetes deployments.",
                                    "clone_url": "https://git.example/k8s.git", "commit": COMMIT},
    "acme/data/pdf-forms": {"description": "Fill PDF forms.", "name": "pdf-forms",
                            "clone_url": "https://git.example/pdf.git"},
}


@pytest.fixture
def reg(web_server, make_ctx):
    serve_registry(web_server, SKILLS)
    return web_server, make_ctx(LEMON_REGISTRY_URL=web_server.url + "/")


def test_registers_last_in_router_order():
    sources = inline_plugins(registry).sources()
    assert [(s.name, s.order) for s in sources] == [("registry", 70)]
    assert isinstance(sources[0], SkillSource)


@pytest.mark.parametrize(("identifier", "name"), [
    ("official/devops/k8s", "k8s"), ("Acme/Data/PDF_forms", "PDF_forms"), ("a/b/c/d", "d")])
def test_parse_takes_three_or_more_segments(identifier, name):
    ref = SOURCE.parse(identifier)
    assert (ref.source, ref.canonical_id, ref.name) == ("registry", identifier, name)


@pytest.mark.parametrize("identifier", ["a/b", "pdf", "gh:a/b/c", "./a/b/c", "/a/b/c",
                                        "~/a/b/c", "https://x.example/a/b", "git@h:a/b/c"])
def test_parse_leaves_other_forms_alone(identifier):
    assert SOURCE.parse(identifier) is None


@pytest.mark.parametrize(("identifier", "why"), [
    ("official/../etc", "'..'"), ("a//c", "is empty"), ("a/b/c\x1b[2J", "U+001B"),
    ("a/b/\u202ec", "U+202E"), ("a/b/c d", "'c d'"), ("a/b/c@1.0", "'c@1.0'")])
def test_parse_refuses_hostile_refs_with_a_reason(identifier, why):
    with pytest.raises(UsageError, match="malformed") as info:
        SOURCE.parse(identifier)
    assert why in str(info.value)


def test_official_namespace_is_official_others_community():
    assert SOURCE.trust_level(SOURCE.parse("official/devops/k8s")) == "official"
    assert SOURCE.trust_level(SOURCE.parse("Official/devops/k8s")) == "official"
    assert SOURCE.trust_level(SOURCE.parse("officials/devops/k8s")) == "community"
    assert SOURCE.trust_level(SOURCE.parse("acme/devops/k8s")) == "community"


def test_search_asks_the_registry(reg):
    server, ctx = reg
    hits = SOURCE.search("pdf", ctx, 10)
    assert [(h.identifier, h.name, h.description, h.source) for h in hits] == [
        ("acme/data/pdf-forms", "pdf-forms", "Fill PDF forms.", "registry")]
    assert server.requests == ["/search?q=pdf"]
    assert len(SOURCE.search("", ctx, 1)) == 1  # limit


def test_search_drops_hits_that_are_not_registry_refs(web_server, make_ctx):
    web_server.route("/search", json_answer({"skills": [
        {"ref": "gh:evil/repo/x"}, {"ref": "../../etc"}, {"id": "a/b/\x1bc"}, "junk",
        {"ref": "ok/fine/skill", "name": 7}, {"id": "ok/fine/other", "description": "d"}]}))
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    assert [(h.identifier, h.name) for h in SOURCE.search("x", ctx, 10)] == [
        ("ok/fine/skill", "skill"), ("ok/fine/other", "other")]


def test_record_and_upstream_hash(reg):
    server, ctx = reg
    record = SOURCE.record(SOURCE.parse("official/devops/k8s-rollout"), ctx)
    assert record["clone_url"] == "https://git.example/k8s.git"
    assert SOURCE.upstream_hash(SOURCE.parse("official/devops/k8s-rollout"), ctx) == COMMIT
    assert server.requests[-1] == "/skills/official/devops/k8s-rollout"


def test_an_unknown_ref_says_how_to_find_one(reg):
    _, ctx = reg
    with pytest.raises(LemonError, match="has no skill 'a/b/c'; search with"):
        SOURCE.record(SOURCE.parse("a/b/c"), ctx)
    assert SOURCE.upstream_hash(SOURCE.parse("a/b/c"), ctx) is None


@pytest.mark.parametrize("record", [
    {"clone_url": "file:///etc"}, {"clone_url": "ssh://h/x"}, {}, {"url": 5},
    {"clone_url": "https://h.example/x\n"}, {"clone_url": "https://h.example/x", "commit": "abc"},
    {"clone_url": "https://h.example/x", "subdirectory": ["a"]}])
def test_a_record_naming_no_usable_repository_is_refused(web_server, make_ctx, record):
    web_server.route("/skills/a/b/c", json_answer(record))
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    with pytest.raises(LemonError, match="registry: the record of 'a/b/c'"):
        SOURCE.record(SOURCE.parse("a/b/c"), ctx)


def test_a_redirect_to_another_host_is_refused(web_server, make_ctx):
    web_server.route("/search", Answer(302, headers={"Location": "http://attacker.invalid/s"}))
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    with pytest.raises(LemonError, match="refused a redirect to another host"):
        SOURCE.search("x", ctx, 5)


def test_a_same_host_redirect_is_followed(web_server, make_ctx):
    web_server.route("/search", Answer(301, headers={"Location": "/v2/search?q=x"}))
    web_server.route("/v2/search?q=x", json_answer({"skills": [{"ref": "a/b/c"}]}))
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    assert [h.identifier for h in SOURCE.search("x", ctx, 5)] == ["a/b/c"]


def test_a_huge_answer_is_refused_without_reading_it_all(web_server, make_ctx):
    web_server.route("/search", Answer(200, b"[" * (3 * 1024 * 1024)))
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    with pytest.raises(LemonError, match="larger than 1048576 bytes"):
        SOURCE.search("x", ctx, 5)


def test_an_answer_that_is_not_json_or_has_no_list(web_server, make_ctx):
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    web_server.route("/search", Answer(200, b"<html>"))
    with pytest.raises(LemonError, match="not usable JSON"):
        SOURCE.search("x", ctx, 5)
    web_server.route("/search", json_answer({"results": []}))
    with pytest.raises(LemonError, match="no 'skills' list"):
        SOURCE.search("x", ctx, 5)


def test_a_server_error_and_an_unreachable_registry(web_server, make_ctx):
    web_server.route("/search", json_answer({"message": "boom"}, 500))
    with pytest.raises(LemonError, match="HTTP 500"):
        SOURCE.search("x", make_ctx(LEMON_REGISTRY_URL=web_server.url), 5)
    with pytest.raises(LemonError, match="cannot reach the server"):
        SOURCE.search("x", make_ctx(LEMON_REGISTRY_URL="http://127.0.0.1:9"), 5)


def test_a_dropped_connection(web_server, make_ctx):
    web_server.route("/search", Answer(200, b'{"skills": []}' * 100, truncate=10))
    with pytest.raises(LemonError, match="connection dropped"):
        SOURCE.search("x", make_ctx(LEMON_REGISTRY_URL=web_server.url), 5)


def test_a_bad_base_url(make_ctx):
    with pytest.raises(LemonError, match="must be an http:// or https:// URL"):
        SOURCE.search("x", make_ctx(LEMON_REGISTRY_URL="file:///etc"), 5)


# -- fetch: the download is delegated to git (a dulwich server on 127.0.0.1) -------------------


@pytest.fixture
def git_repo(tmp_path):
    from tests.gitserver import GitServer, build_repo

    repo, sha = build_repo(tmp_path / "repo.git", {
        "skills/k8s/SKILL.md": "---\nname: k8s\ndescription: Use when deploying.\n---\nBody\n",
        "skills/k8s/scripts/run.sh": "echo hi\n",
        "README.md": "# repo\n"})
    with GitServer() as server:
        yield server.add("acme/skills.git", repo), sha


def test_fetch_clones_the_recorded_repository_at_the_recorded_commit(web_server, make_ctx,
                                                                      git_repo, tmp_path):
    url, sha = git_repo
    serve_registry(web_server, {"acme/devops/k8s": {"clone_url": url, "commit": sha,
                                                   "subdirectory": "skills/k8s"}})
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    ref = SOURCE.parse("acme/devops/k8s")
    dest = tmp_path / "stage"
    dest.mkdir()
    result = SOURCE.fetch(ref, dest, ctx, None)
    assert result.revision == sha
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "SKILL.md", "scripts/run.sh"]
    assert not (dest / ".git").exists()
    assert SOURCE.upstream_hash(ref, ctx) == sha


def test_without_a_pinned_commit_the_upstream_hash_asks_the_repository(web_server, make_ctx,
                                                                       git_repo):
    url, sha = git_repo
    serve_registry(web_server, {"acme/devops/k8s": {"clone_url": url, "git_ref": "main"}})
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    assert SOURCE.upstream_hash(SOURCE.parse("acme/devops/k8s"), ctx) == sha


@pytest.mark.parametrize(("record", "error"), [
    ({"subdirectory": "../../etc"}, "subdirectory"),
    ({"git_ref": "no-such-branch"}, "no-such-branch"),
    ({"commit": "0" * 40}, "0000000")])
def test_a_bad_record_fails_clearly(web_server, make_ctx, git_repo, tmp_path, record, error):
    url, _ = git_repo
    serve_registry(web_server, {"acme/devops/k8s": {"clone_url": url, **record}})
    ctx = make_ctx(LEMON_REGISTRY_URL=web_server.url)
    with pytest.raises(LemonError, match=error):
        SOURCE.fetch(SOURCE.parse("acme/devops/k8s"), tmp_path / "s", ctx, None)
