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
from lemon_core.errors import LemonError
from lemon_core.state.lockfile import read_lock_records
from tests.blueprints.support import TEAM, write_bundle
from tests.gitserver import GitServer, build_repo
from tests.install.support import Faults, snapshot


def _plan(ctx, plugins, **kw):
    return preview(open_bundle(ctx, "team"), ctx, plugins, **kw)


def _apply(ctx, plugins, digest_, **kw):
    kw.setdefault("approve", True)
    return apply(open_bundle(ctx, "team"), digest_, ctx, plugins, **kw)


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


def test_a_global_profile_writes_the_agent_dirs_skills_and_servers(ctx, plugins, agent,
                                                                   project) -> None:
    write_bundle(agent, manifest=TEAM + '\n[profiles.everywhere]\nscope = "global"\n')
    plan = _plan(ctx, plugins, profile="everywhere")
    _apply(ctx, plugins, plan.digest, profile="everywhere")
    assert (agent / "skill" / "alpha" / "SKILL.md").is_file()
    assert [s["name"] for s in json.loads((agent / "mcp.json").read_text())["servers"]] == [
        "docs"]
    assert not (project / ".lemon").exists()
