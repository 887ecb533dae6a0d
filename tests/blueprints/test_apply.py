"""Preview, digest and apply against real folders: the real local and git sources, the real
audited write, lemon's real mcp.json writer, a dulwich git server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from lemon_core.blueprints import (
    BlueprintError,
    StaleDigest,
    apply,
    open_bundle,
    preview,
)
from lemon_core.blueprints.digest import digest
from lemon_core.blueprints.model import BundleFile
from lemon_core.errors import LemonError, UsageError
from lemon_core.state.lockfile import read_lock_records
from tests.blueprints.support import TEAM, write_bundle
from tests.gitserver import GitServer, build_repo
from tests.install.support import Faults, snapshot


def _plan(ctx, plugins, **kw):
    return preview(open_bundle(ctx, "team"), ctx, plugins, **kw)


def _apply(ctx, plugins, digest_, **kw):
    kw.setdefault("approve", True)
    return apply(open_bundle(ctx, "team"), digest_, ctx, plugins, **kw)


def test_the_digest_is_stable_and_moves_with_any_byte_or_name() -> None:
    files = (BundleFile("a", 1, "0" * 64), BundleFile("b", 2, "1" * 64))
    first = digest(files, {"x": [1, 2]})
    assert first == digest(tuple(reversed(files)), {"x": [1, 2]})  # order is canonical
    assert first.startswith("sha256:") and len(first) == 71
    assert first != digest((files[0], BundleFile("b", 2, "2" * 64)), {"x": [1, 2]})
    assert first != digest((files[0], BundleFile("c", 2, "1" * 64)), {"x": [1, 2]})
    assert first != digest(files, {"x": [2, 1]})
    assert first != digest(files[:1], {"x": [1, 2]})


def test_preview_resolves_audits_and_shows_what_would_change(ctx, plugins, agent,
                                                              project) -> None:
    write_bundle(agent)
    plan = _plan(ctx, plugins)
    assert plan.problems == () and plan.scope == "project"
    assert [(s.identifier, s.chosen, dict(s.changes)) for s in plan.skills] == [
        ("./skills/alpha", ("alpha",), {"alpha": "install"}),
        ("./skills/beta", ("beta",), {"beta": "install"})]
    assert [(s.name, s.change) for s in plan.servers] == [("docs", "add")]
    assert plan.digest == _plan(ctx, plugins).digest  # stable
    assert not (project / ".lemon").exists()  # nothing written
    small = _plan(ctx, plugins, profile="small")
    assert [s.label for s in small.skills] == ["./skills/alpha"] and small.servers == ()
    assert small.digest != plan.digest
    with pytest.raises(UsageError, match="no profile"):
        _plan(ctx, plugins, profile="ghost")


def test_the_digest_does_not_depend_on_where_the_bundle_lives(ctx, plugins, agent,
                                                               tmp_path) -> None:
    write_bundle(agent)
    other = write_bundle(tmp_path / "copy")
    here = _plan(ctx, plugins).digest
    there = preview(open_bundle(ctx, path=other), ctx, plugins).digest
    assert here == there


@pytest.mark.parametrize("source", ["../../x", "./skills/../../x", "/etc", "~/skills",
                                    "./missing"])
def test_a_source_outside_the_bundle_is_refused(ctx, plugins, agent, source, tmp_path) -> None:
    write_bundle(agent, manifest=f'version = 1\nname = "t"\n[[skills]]\nsource = "{source}"\n')
    with pytest.raises(UsageError):
        _plan(ctx, plugins)


def test_a_folder_outside_the_bundle_named_without_dot_slash_is_refused(ctx, plugins, agent,
                                                                         tmp_path) -> None:
    (tmp_path / "elsewhere").mkdir()
    write_bundle(agent, manifest=f'version = 1\nname = "t"\n[[skills]]\n'
                                 f'source = "{tmp_path / "elsewhere"}"\n')
    with pytest.raises(UsageError, match="absolute"):
        _plan(ctx, plugins)


def test_apply_writes_skills_and_servers(ctx, plugins, agent, project) -> None:
    write_bundle(agent)
    plan = _plan(ctx, plugins)
    done = _apply(ctx, plugins, plan.digest)
    assert [w.key for w in done.skills.written] == ["alpha", "beta"]
    records = read_lock_records(project / ".lemon" / "skills.lock.json")[0]
    assert {k: r.source_kind for k, r in records.items()} == {"alpha": "local", "beta": "local"}
    data = json.loads((project / ".lemon" / "mcp.json").read_text())
    assert [s["name"] for s in data["servers"]] == ["docs"]
    again = _plan(ctx, plugins)
    assert [dict(s.changes) for s in again.skills] == [{"alpha": "replace"},
                                                       {"beta": "replace"}]
    assert again.servers[0].change == "unchanged" and again.digest != plan.digest


def test_apply_refuses_a_stale_digest_and_names_the_fresh_one(ctx, plugins, agent,
                                                              project) -> None:
    root = write_bundle(agent)
    old = _plan(ctx, plugins).digest
    (root / "skills" / "beta" / "extra.md").write_text("more\n", encoding="utf-8")
    fresh = _plan(ctx, plugins).digest
    with pytest.raises(StaleDigest) as caught:
        _apply(ctx, plugins, old)
    assert fresh in str(caught.value) and caught.value.fresh == fresh
    assert not (project / ".lemon").exists()
    with pytest.raises(StaleDigest):
        _apply(ctx, plugins, "sha256:" + "0" * 64)
    _apply(ctx, plugins, fresh)
    assert (project / ".lemon" / "skill" / "beta" / "extra.md").exists()


def test_a_blocked_skill_is_a_problem_and_apply_refuses(ctx, plugins, agent, project) -> None:
    write_bundle(agent, beta_body="BLOCKME\n")
    plan = _plan(ctx, plugins)
    assert any("blocked" in p for p in plan.problems)
    with pytest.raises(BlueprintError, match="blocked"):
        _apply(ctx, plugins, plan.digest)
    assert not (project / ".lemon").exists()


@pytest.mark.parametrize("step", ["audit", "activate", "record"])
def test_a_failure_in_the_skills_write_writes_no_server(ctx, plugins, agent, project,
                                                        step) -> None:
    write_bundle(agent)
    plan = _plan(ctx, plugins)
    faults = Faults(step, KeyboardInterrupt(), at=2 if step == "audit" else 1)
    with pytest.raises(KeyboardInterrupt):
        _apply(ctx, plugins, plan.digest, steps=faults.steps())
    assert not (project / ".lemon" / "mcp.json").exists()
    assert not (project / ".lemon" / "skill" / "alpha").exists()


def test_a_failure_writing_the_servers_rolls_the_skills_back(ctx, plugins, agent,
                                                             project) -> None:
    write_bundle(agent)
    first = _plan(ctx, plugins)
    _apply(ctx, plugins, first.digest, profile=None)
    root = agent / "bundles" / "team"
    (root / "skills" / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: Use when testing alpha.\n---\nNew.\n", encoding="utf-8")
    (root / "blueprint.toml").write_text(TEAM.replace('"echo"', '"printf"'), encoding="utf-8")
    before = snapshot(project / ".lemon")
    plan = _plan(ctx, plugins)

    def broken(*args, **kwargs):
        raise LemonError("cannot write mcp.json: disk full")

    with pytest.raises(LemonError, match="disk full"):
        _apply(ctx, plugins, plan.digest, write_servers=broken)
    assert snapshot(project / ".lemon") == before


def test_servers_alone_are_written_in_one_edit(ctx, plugins, agent, project) -> None:
    manifest = ('version = 1\nname = "s"\n[[mcp.servers]]\nname = "a"\ntype = "stdio"\n'
                'command = "echo"\n[[mcp.servers]]\nname = "b"\ntype = "http"\n'
                'url = "https://example.invalid/mcp"\n')
    write_bundle(agent, manifest=manifest)
    plan = _plan(ctx, plugins)
    done = _apply(ctx, plugins, plan.digest)
    assert done.skills is None and [w.action for w in done.servers] == ["added", "added"]
    data = json.loads((project / ".lemon" / "mcp.json").read_text())
    assert [s["name"] for s in data["servers"]] == ["a", "b"]


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server


def test_a_git_source_is_fetched_pinned_and_covered_by_the_digest(tmp_path, make_ctx, agent,
                                                                  git_server, recorder,
                                                                  project) -> None:
    from lemon_plugins.sources import gh, local

    from lemon_core.testing import inline_plugins
    from tests.gitserver import commit
    from tests.install.support import MarkerPlugin

    skill = "---\nname: {0}\ndescription: Use when testing {0}.\n---\nBody {1}.\n"
    repo, first = build_repo(tmp_path / "r", {"skills/pdf/SKILL.md": skill.format("pdf", 1)})
    git_server.add("octo/skills.git", repo)
    ctx = make_ctx(LEMON_GITHUB_URL=git_server.url)
    plugins = inline_plugins(("sources.gh", gh), ("sources.local", local),
                             ("auditors.marker", MarkerPlugin()), recorder)
    write_bundle(agent, manifest='version = 1\nname = "g"\n[[skills]]\nsource = '
                                 '"gh:octo/skills"\nskills = ["pdf"]\n')
    plan = _plan(ctx, plugins, approve=True)
    assert plan.skills[0].revision == first and plan.skills[0].chosen == ("pdf",)
    commit(repo, {"skills/pdf/SKILL.md": skill.format("pdf", 2)}, message="second")
    with pytest.raises(StaleDigest):  # upstream moved: the old digest no longer applies
        _apply(ctx, plugins, plan.digest)
    fresh = _plan(ctx, plugins, approve=True)
    _apply(ctx, plugins, fresh.digest)
    record = read_lock_records(project / ".lemon" / "skills.lock.json")[0]["pdf"]
    assert record.source_kind == "gh" and "Body 2" in (
        project / ".lemon" / "skill" / "pdf" / "SKILL.md").read_text()
    with pytest.raises(LemonError):  # a remote source is fetched only when approved
        _plan(ctx, plugins, approve=None)


def test_the_shipped_example_previews_clean_and_its_server_is_off(ctx, plugins) -> None:
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "examples" / "blueprints" / "team"
    plan = preview(open_bundle(ctx, path=example), ctx, plugins)
    assert plan.problems == () and plan.skills[0].chosen == ("terraform-plan",)
    assert [s.entry["enabled"] for s in plan.servers] == [False]
