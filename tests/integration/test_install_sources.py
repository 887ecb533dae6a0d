"""Installing through the real pipeline from the builtin, local, hermes and registry sources
(real files, a Hermes repository over HTTP and a registry plus a git server on 127.0.0.1), and
routing every form with the installed sources and the third-party example plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemon_core.errors import LemonError, UsageError
from lemon_core.install import router
from lemon_core.skills import installing
from lemon_core.testing import inline_plugins
from tests.helpers import write_skill
from tests.registry_server import WebServer
from tests.registry_server import hermes as serve_hermes
from tests.registry_server import registry as serve_registry

pytestmark = pytest.mark.integration  # starts processes or loopback servers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "thirdparty_plugin"
COMMIT = "ab12" * 10


@pytest.fixture
def plugins():
    return inline_plugins(builtins=True)


def _lock(agent: Path) -> dict:
    return json.loads((agent / "skills.lock.json").read_text())["skills"]


def test_a_builtin_skill_installs_without_asking(make_ctx, home, plugins):
    ctx = make_ctx()
    asked = []
    result = installing.install("builtin:writing-skills", ctx, plugins=plugins,
                                approve=lambda request: asked.append(request) or False)
    assert (result.key, result.trust, result.source) == ("writing-skills", "builtin", "builtin")
    assert asked == []  # builtin: no approval
    agent = home / ".lemon" / "agent"
    assert (agent / "skill" / "writing-skills" / "references" / "checklist.md").is_file()
    record = _lock(agent)["writing-skills"]
    assert record["trust_level"] == "builtin"
    assert record["bundle_hash"] == result.bundle_hash


def test_a_local_folder_of_skills_installs_the_chosen_one(make_ctx, project, home, plugins):
    write_skill(project / "vendor", "one")
    write_skill(project / "vendor", "two")
    ctx = make_ctx()
    result = installing.install("./vendor", ctx, plugins=plugins, approve=True, skills=["two"])
    assert (result.key, result.trust) == ("two", "trusted")
    assert sorted(p.name for p in (home / ".lemon" / "agent" / "skill").iterdir()) == ["two"]
    assert _lock(home / ".lemon" / "agent")["two"]["source_id"] == str(project / "vendor")


def test_a_local_link_out_is_refused_and_nothing_changes(make_ctx, project, home, plugins,
                                                         tmp_path):
    write_skill(project, "leaky")
    (project / "leaky" / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(LemonError, match="link"):
        installing.install("./leaky", make_ctx(), plugins=plugins, approve=True)
    assert not (home / ".lemon" / "agent" / "skill" / "leaky").exists()


def test_a_hermes_skill_installs_from_http_with_its_commit(make_ctx, home, plugins):
    files = {"optional-skills/research/arxiv/SKILL.md":
             b"---\nname: arxiv\ndescription: Use when searching arXiv.\n---\nBody\n",
             "optional-skills/research/arxiv/references/api.md": b"# API\n"}
    with WebServer() as server:
        ctx = make_ctx(**serve_hermes(server, files, commit=COMMIT))
        result = installing.install("hermes:optional/research/arxiv", ctx, plugins=plugins,
                                    approve=True)
    assert (result.key, result.trust, result.revision) == ("arxiv", "official", COMMIT)
    record = _lock(home / ".lemon" / "agent")["arxiv"]
    assert record["source_id"] == "hermes:optional/research/arxiv"
    assert (home / ".lemon" / "agent" / "skill" / "arxiv" / "references" / "api.md").is_file()


def test_a_registry_skill_installs_through_git(make_ctx, home, plugins, tmp_path):
    from tests.gitserver import GitServer, build_repo

    repo, sha = build_repo(tmp_path / "r.git", {
        "k8s/SKILL.md": "---\nname: k8s\ndescription: Use when deploying.\n---\nBody\n"})
    with GitServer() as git, WebServer() as web:
        url = git.add("acme/r.git", repo)
        serve_registry(web, {"official/devops/k8s": {"clone_url": url, "subdirectory": "k8s"}})
        ctx = make_ctx(LEMON_REGISTRY_URL=web.url)
        result = installing.install("official/devops/k8s", ctx, plugins=plugins, approve=True)
    assert (result.key, result.trust, result.revision) == ("k8s", "official", sha)


@pytest.mark.parametrize(("identifier", "source"), [
    ("builtin", "builtin"), ("builtin:writing-skills", "builtin"),
    ("hermes:optional/research/arxiv", "hermes"), ("example:hello", "example"),
    ("./skill", "local"), ("../skill", "local"), ("/abs/skill", "local"), ("~/skill", "local"),
    ("official/devops/k8s", "registry"), ("acme/a/b/c", "registry")])
def test_every_form_routes_to_its_source_with_a_third_party_among_them(make_ctx, monkeypatch,
                                                                        identifier, source):
    monkeypatch.syspath_prepend(str(FIXTURES))
    from lemon_example_plugin import source as example

    plugins = inline_plugins(("sources.example", example), builtins=True)
    assert router.resolve(identifier, make_ctx(), plugins=plugins)[0].name == source


@pytest.mark.parametrize(("identifier", "reason"), [
    ("hermes:optional/../../etc", "'..' steps"), ("builtin:../x", "not a built-in skill id"),
    ("acme/../etc", "malformed"), ("./a\x1bb", "U\\+001B"), ("two/parts", "accepted forms")])
def test_hostile_or_unknown_identifiers_are_refused_with_reasons(make_ctx, identifier, reason):
    with pytest.raises(UsageError, match=reason):
        router.resolve(identifier, make_ctx(), plugins=inline_plugins(builtins=True))


def test_the_recorded_upstream_hash_is_what_the_source_answers_later(make_ctx, home, project,
                                                                     plugins, tmp_path):
    """One hash for install and check: an unchanged skill never looks outdated."""
    write_skill(project, "mine")
    files = {"skills/a/arxiv/SKILL.md":
             b"---\nname: arxiv\ndescription: Use when searching arXiv.\n---\nBody\n"}
    with WebServer() as server:
        ctx = make_ctx(**serve_hermes(server, files, commit=COMMIT))
        for identifier in ("builtin:writing-skills", "./mine", "hermes:bundled/a/arxiv"):
            result = installing.install(identifier, ctx, plugins=plugins, approve=True)
            source, ref = router.resolve(identifier, ctx, plugins=plugins)
            recorded = _lock(home / ".lemon" / "agent")[result.key]["upstream_hash"]
            assert recorded == source.upstream_hash(ref, ctx), identifier


@pytest.mark.parametrize("identifier", ["example:../x", "example:a\x1bb", "example:"])
def test_the_third_party_source_refuses_its_own_malformed_ids(make_ctx, monkeypatch, identifier):
    monkeypatch.syspath_prepend(str(FIXTURES))
    from lemon_example_plugin import source as example

    plugins = inline_plugins(("sources.example", example), builtins=True)
    with pytest.raises(UsageError, match="an example skill name is"):
        router.resolve(identifier, make_ctx(), plugins=plugins)
    with pytest.raises(UsageError, match="example:<name>"):  # listed among the forms
        router.resolve("two/parts", make_ctx(), plugins=plugins)


def _tree_of(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def _hostile(kind: str, folder: Path, tmp_path: Path) -> None:
    if kind == "hard link":
        (tmp_path / "outside").write_text("secret")
        (folder / "notes.md").hardlink_to(tmp_path / "outside")
    elif kind == "fifo":
        import os

        os.mkfifo(folder / "pipe")
    elif kind == "sparse 1 GB":
        with open(folder / "big.bin", "wb") as fh:
            fh.truncate(1 << 30)
    elif kind == "5,000 files":  # past the 2,000-entry cap: the copy stops there
        for i in range(5_000):
            (folder / f"f{i}").touch()
    elif kind == "link to a sibling":
        (folder / "other").symlink_to("../sibling")
    elif kind == "control character name":
        (folder / "a\x1b[2Jb").write_text("x")


@pytest.mark.parametrize("kind", ["hard link", "fifo", "sparse 1 GB", "5,000 files",
                                  "link to a sibling", "control character name"])
def test_a_hostile_local_folder_ends_with_a_clear_error_and_no_change(make_ctx, project, home,
                                                                      plugins, tmp_path, kind):
    write_skill(project, "bad")
    (project / "sibling").mkdir()
    _hostile(kind, project / "bad", tmp_path)
    agent = home / ".lemon" / "agent"
    (agent / "skill").mkdir(parents=True)  # a lemon that has installed before
    before = _tree_of(agent)
    with pytest.raises(LemonError) as info:
        installing.install("./bad", make_ctx(), plugins=plugins, approve=True)
    assert "\n" not in str(info.value) and str(info.value)
    assert _tree_of(agent) == before


@pytest.mark.parametrize("attack", ["dropped", "redirect"])
def test_a_hermes_server_that_misbehaves_changes_nothing(make_ctx, home, plugins, attack):
    from tests.registry_server import Answer

    body = b"---\nname: x\ndescription: Use when testing.\n---\n" + b"Body.\n" * 1000
    files = {"skills/a/x/SKILL.md": body}
    with WebServer() as server:
        ctx = make_ctx(**serve_hermes(server, files, commit=COMMIT))
        path = f"/raw/{COMMIT}/skills/a/x/SKILL.md"
        server.route(path, Answer(200, body, truncate=100) if attack == "dropped" else
                     Answer(302, headers={"Location": "http://attacker.invalid/x"}))
        with pytest.raises(LemonError, match="connection dropped" if attack == "dropped"
                           else "refused a redirect to another host"):
            installing.install("hermes:bundled/a/x", ctx, plugins=plugins, approve=True)
    assert not any((home / ".lemon" / "agent" / "skill").glob("*"))
