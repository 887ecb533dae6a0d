"""The audited write on its own: a skill lemon writes itself (``skill_manage``'s and drafts'
shape: files made in memory, nothing fetched) goes through :func:`commit` exactly as an
install does: checked, audited, approved, activated, recorded, observed. Real files, the real
marker auditor, real observers."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest

from lemon_core.approval import ApprovalRefused, Consent, WriteApproval
from lemon_core.errors import UsageError
from lemon_core.install import targets
from lemon_core.install.checks import UnsafeBundle
from lemon_core.install.failures import Blocked
from lemon_core.install.transaction import (
    Origin,
    StagedBundle,
    Staging,
    Steps,
    WriteRequest,
    commit,
)
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import Faults, snapshot


@attrs.frozen
class Authored:
    """A skill lemon writes itself: its files, made in memory."""

    key: str
    files: dict[str, str]

    @property
    def name(self) -> str:
        return self.key

    def stage(self, tree: Path) -> Staging:
        for relative, text in self.files.items():
            path = tree / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return Staging((StagedBundle(tree, "", self.key),),
                       Origin(identifier=f"skill_manage:{self.key}", source="lemon",
                              trust="local", source_kind="agent"))


def _skill(key: str, body: str = "Use it.\n", **more: str) -> Authored:
    manifest = f"---\nname: {key}\ndescription: Use when testing {key}.\n---\n{body}"
    return Authored(key, {"SKILL.md": manifest, **more})


def _write(ctx, plugins, content, consent=True, steps: Steps | None = None, **options):
    scope = targets.scope_for(ctx, local=False)
    request = WriteRequest(scope=scope, action="create", consent=consent, content=content,
                           names=(content.key,), **options)
    return commit(request, ctx, plugins) if steps is None else commit(request, ctx, plugins,
                                                                        steps)


def test_a_skill_written_in_memory_is_audited_recorded_and_observed(ctx, plugins, agent,
                                                                     recorder) -> None:
    asked: list[WriteApproval] = []
    result = _write(ctx, plugins, _skill("note", extra="x"), consent=lambda r: asked.append(r)
                    or True)
    target = agent / "skill" / "note"
    assert [w.key for w in result.written] == ["note"] and result.written[0].verdict == "pass"
    assert (target / "SKILL.md").read_text().endswith("Use it.\n")
    assert [r.stage for r in asked] == ["install"] and asked[0].targets == (str(target),)
    record = read_lock_records(agent / "skills.lock.json")[0]["note"]
    assert (record.source_kind, record.identifier, record.trust_level) == (
        "agent", "skill_manage:note", "local")
    assert record.bundle_hash == result.written[0].bundle_hash and record.file_hashes
    assert [(e.key, e.action, e.accepted) for e in recorder.written] == [
        ("note", "create", True)]
    assert [p.name for p in (agent / "skill").iterdir()] == ["note"]  # no staging left


def test_a_blocked_write_changes_nothing_and_is_observed(ctx, plugins, agent, recorder) -> None:
    _write(ctx, plugins, _skill("note"))
    before = snapshot(agent)
    with pytest.raises(Blocked, match="blocked by the security audit"):
        _write(ctx, plugins, _skill("note", "BLOCKME\n"), replace=True)
    assert snapshot(agent) == before
    assert [(e.key, e.accepted) for e in recorder.written] == [("note", True), ("note", False)]


def test_an_unsafe_bundle_is_refused_before_any_question(ctx, plugins, agent) -> None:
    class Escaping(Authored):
        def stage(self, tree: Path) -> Staging:
            staged = super().stage(tree)
            (tree / "passwd").symlink_to("/etc/passwd")
            return staged

    asked: list[WriteApproval] = []
    with pytest.raises(UnsafeBundle):
        _write(ctx, plugins, Escaping("note", _skill("note").files),
               consent=lambda r: asked.append(r) or True)
    assert asked == [] and not (agent / "skill").exists()


def test_nothing_is_written_without_consent(ctx, plugins, agent) -> None:
    with pytest.raises(ApprovalRefused, match="installing note needs approval"):
        _write(ctx, plugins, _skill("note"), consent=None)
    with pytest.raises(ApprovalRefused, match="was not approved"):
        _write(ctx, plugins, _skill("note"), consent=Consent(ask=lambda r: False))
    assert not (agent / "skill").exists()


@pytest.mark.parametrize("step", ["check", "audit", "ask", "lock", "rehash", "activate",
                                  "record", "refresh"])
def test_a_crash_at_any_step_of_a_replacing_write_keeps_the_old_skill(ctx, plugins, agent,
                                                                      step) -> None:
    _write(ctx, plugins, _skill("note", "old\n"))
    before = snapshot(agent)
    faults = Faults(step, KeyboardInterrupt(), after=step in ("activate", "record", "refresh"))
    with pytest.raises(KeyboardInterrupt):
        _write(ctx, plugins, _skill("note", "new\n"), steps=faults.steps(), replace=True)
    assert faults.calls >= 1 and snapshot(agent) == before
    data = json.loads((agent / "skills.lock.json").read_text())
    assert list(data["skills"]) == ["note"]


def test_a_removal_goes_through_the_same_commit(ctx, plugins, agent, recorder) -> None:
    _write(ctx, plugins, _skill("note"))
    scope = targets.scope_for(ctx, local=False)
    done = commit(WriteRequest(scope=scope, action="remove", consent=True, removals=("note",)),
                  ctx, plugins)
    assert [w.key for w in done.written] == ["note"] and done.written[0].record is not None
    assert not (agent / "skill" / "note").exists()
    assert "note" not in read_lock_records(agent / "skills.lock.json")[0]
    assert [(e.action, e.accepted) for e in recorder.written][-1] == ("remove", True)


def test_a_refusal_without_names_is_observed_under_the_contents_name(ctx, plugins,
                                                                      recorder) -> None:
    scope = targets.scope_for(ctx, local=False)
    with pytest.raises(ApprovalRefused):
        commit(WriteRequest(scope=scope, action="create", content=_skill("note"),
                            call_id="c1"), ctx, plugins)
    assert [(e.key, e.accepted, e.tool_call_id) for e in recorder.written] == [
        ("note", False, "c1")]


def test_a_request_is_content_or_removals(ctx, plugins) -> None:
    scope = targets.scope_for(ctx, local=False)
    with pytest.raises(UsageError):
        commit(WriteRequest(scope=scope, action="create"), ctx, plugins)
    with pytest.raises(UsageError):
        commit(WriteRequest(scope=scope, action="create", content=_skill("a"),
                            removals=("a",)), ctx, plugins)


@attrs.frozen
class Plan:
    """A blueprint's shape: several skills of several sources, written all or nothing."""

    skills: tuple[Authored, ...]

    @property
    def name(self) -> str:
        return "plan"

    def stage(self, tree: Path) -> Staging:
        bundles = []
        for skill in self.skills:
            staged = skill.stage(tree / skill.key)
            origin = attrs.evolve(staged.origin, identifier=f"./skills/{skill.key}",
                                  source="local", source_kind="local")
            bundles.append(StagedBundle(tree / skill.key, skill.key, skill.key, origin))
        return Staging(tuple(bundles), Origin(identifier="blueprint:team", source="blueprint",
                                              trust="local"))


def test_several_sources_write_all_or_nothing_each_with_its_own_origin(ctx, plugins, agent,
                                                                        recorder) -> None:
    scope = targets.scope_for(ctx, local=False)
    plan = Plan((_skill("alpha"), _skill("beta")))
    request = WriteRequest(scope=scope, action="apply", consent=True, content=plan,
                           call_id="call-7")
    commit(request, ctx, plugins)
    records = read_lock_records(agent / "skills.lock.json")[0]
    assert {k: (r.identifier, r.source_kind) for k, r in records.items()} == {
        "alpha": ("./skills/alpha", "local"), "beta": ("./skills/beta", "local")}
    assert {(e.key, e.tool_call_id, e.metadata["source"]) for e in recorder.written} == {
        ("alpha", "call-7", "local"), ("beta", "call-7", "local")}
    before = snapshot(agent)
    blocked = Plan((_skill("alpha", "new\n"), _skill("beta", "BLOCKME\n")))
    with pytest.raises(Blocked):
        commit(attrs.evolve(request, content=blocked, replace=True), ctx, plugins)
    assert snapshot(agent) == before  # alpha is not written without beta
