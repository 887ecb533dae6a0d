"""A multi-skill install is per skill (``each=True``): the skills that pass install, each
one that fails is a Failure with its reason and next step, and nothing is half-written."""

from __future__ import annotations

import pytest

from lemon_core.install import pipeline
from lemon_core.install.failures import NoneInstalled
from lemon_core.install.pipeline import InstallRequest
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import Faults, skill_folder, snapshot

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _install(identifier, ctx, plugins, **options):
    options.setdefault("approve", True)
    return pipeline.install(InstallRequest(str(identifier), **options), ctx, plugins)


def _tree(src):
    for name in ("alpha", "beta"):
        skill_folder(src / "skills", name)
    skill_folder(src / "skills", "blocked", body="BLOCKME\n")
    skill_folder(src / "skills", "misnamed", manifest_name="../other")  # a name that is a path
    skill_folder(src / "group-a", "twin")
    skill_folder(src / "group-b", "twin")
    return src


def test_the_skills_that_pass_install_and_each_failure_is_named(ctx, plugins, agent, src,
                                                                 recorder) -> None:
    result = _install(_tree(src), ctx, plugins, all_skills=True, each=True)
    assert sorted(r.key for r in result.all) == ["alpha", "beta"]
    failed = {(f.key, f.folder): f for f in result.failed}
    assert sorted(failed) == [("blocked", "skills/blocked"), ("misnamed", "skills/misnamed"),
                              ("twin", "group-a/twin"), ("twin", "group-b/twin")]
    assert "blocked by the security audit" in failed["blocked", "skills/blocked"].reason
    assert "--override-block" in failed["blocked", "skills/blocked"].next_step
    assert "named '../other', which cannot be a skill folder's name" in failed[
        "misnamed", "skills/misnamed"].reason
    assert "--skill group-a/twin" in failed["twin", "group-a/twin"].next_step
    assert all("nothing was" not in f.reason for f in result.failed)
    records = read_lock_records(agent / "skills.lock.json")[0]
    assert sorted(records) == ["alpha", "beta"]
    assert sorted(p.name for p in (agent / "skill").iterdir()
                  if not p.name.startswith(".")) == ["alpha", "beta"]
    assert {e.key for e in recorder.written if not e.accepted} == {"blocked", "misnamed",
                                                                   "twin"}


def test_when_every_chosen_skill_fails_nothing_changes(ctx, plugins, agent, src) -> None:
    _tree(src)
    before = snapshot(agent)
    with pytest.raises(NoneInstalled) as caught:
        _install(src, ctx, plugins, skills=["blocked", "misnamed"], each=True)
    assert {f.key for f in caught.value.failed} == {"blocked", "misnamed"}
    assert "none of the 2 chosen skills was installed" in str(caught.value)
    assert snapshot(agent) == before


def test_an_installed_name_fails_alone_and_force_replaces_it(ctx, plugins, agent, src) -> None:
    _tree(src)
    _install(src, ctx, plugins, skills=["alpha"])
    result = _install(src, ctx, plugins, skills=["alpha", "beta"], each=True)
    assert [r.key for r in result.all] == ["beta"]
    (failure,) = result.failed
    assert failure.key == "alpha" and "already installed" in failure.reason
    assert "lemon skill update alpha" in failure.next_step


def test_without_each_one_failure_still_stops_all(ctx, plugins, agent, src) -> None:
    _tree(src)
    with pytest.raises(pipeline.Blocked):
        _install(src, ctx, plugins, skills=["alpha", "blocked"])
    assert not (agent / "skill" / "alpha").exists()


def test_a_failed_activation_leaves_no_skill_half_written(ctx, plugins, agent, src) -> None:
    _tree(src)
    faults = Faults("activate", OSError("disk full"), at=2)  # after one skill was activated
    before = snapshot(agent)
    with pytest.raises(OSError):
        pipeline.install(InstallRequest(str(src), approve=True, all_skills=True, each=True),
                         ctx, plugins, faults.steps())
    assert faults.calls == 2 and snapshot(agent) == before


def test_a_skill_holding_git_lfs_pointers_fails_alone(ctx, plugins, agent, src) -> None:
    from lemon_core.install.checks import UnsafeBundle
    from tests.gitserver import LFS_POINTER

    skill_folder(src / "skills", "alpha")
    lfs = skill_folder(src / "skills", "pictures")
    (lfs / "img.png").write_bytes(LFS_POINTER)
    (src / "docs").mkdir()
    (src / "docs" / "banner.gif").write_bytes(LFS_POINTER)  # outside every skill: ignored
    result = _install(src, ctx, plugins, all_skills=True, each=True)
    assert [r.key for r in result.all] == ["alpha"]
    (failure,) = result.failed
    assert failure.key == "pictures" and "Git LFS pointers (img.png)" in failure.reason
    assert "git lfs pull" in failure.reason
    with pytest.raises(UnsafeBundle, match="Git LFS pointers"):
        _install(src, ctx, plugins, skills=["pictures"])


def test_a_block_names_the_finding_that_blocks_it_not_only_the_warnings(ctx, plugins, agent,
                                                                         src) -> None:
    """K-Dense's scientific-schematics was refused "blocked" with three [warn] findings listed:
    the first three findings by file, the blocking one fourth. The block is named, with its
    file, and the warnings are counted."""
    skill_folder(src / "skills", "fine")
    skill_folder(src / "skills", "mixed", extra={"a.md": "WARNME\n", "b.md": "WARNME\n",
                                                 "c.md": "WARNME\n", "z.md": "BLOCKME\n"})
    result = _install(src, ctx, plugins, all_skills=True, each=True)
    (failure,) = result.failed
    assert failure.key == "mixed"
    assert "[block] test.block: BLOCKME found (z.md)" in failure.reason
    assert "beside 3 warnings" in failure.reason and "[warn]" not in failure.reason
    with pytest.raises(pipeline.Blocked, match=r"\[block\] test.block: BLOCKME found \(z.md\)"):
        _install(src, ctx, plugins, skills=["mixed"])


def test_the_override_question_lists_the_blocking_findings_first(ctx, plugins, agent,
                                                                 src) -> None:
    skill_folder(src, "mixed", extra={"a.md": "WARNME\n", "z.md": "BLOCKME\n"})
    asked = []
    result = _install(src / "mixed", ctx, plugins, override=True,
                      approve=lambda request: asked.append(request) or True)
    assert result.key == "mixed"
    (override,) = [r for r in asked if r.stage == "override"]
    assert [f.severity for f in override.findings] == ["block", "warn"]
