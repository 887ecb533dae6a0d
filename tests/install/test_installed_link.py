"""An installed skill with a link leading out of it, added after the install (issue 17 §8):
``check``, ``outdated`` and ``sync --frozen`` give one verdict with one reason, never "not
installed" in one command and "active (ready)" in another. Real installs, real links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemon_core.install import outdated, pipeline, sync
from lemon_core.install.pipeline import InstallRequest
from tests.helpers import run_cli, write_skill
from tests.install.support import skill_folder

REASON = "modified after install: holds a link leading out of the skill (references/x -> {})"


def test_the_library_names_the_link_where_it_said_missing(ctx, plugins, agent, src,
                                                          tmp_path: Path) -> None:
    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
    outside = tmp_path / "outside"
    outside.mkdir()
    (agent / "skill" / "demo" / "references").mkdir(exist_ok=True)
    (agent / "skill" / "demo" / "references" / "x").symlink_to(outside)
    (state,) = outdated.states(ctx, plugins, outdated.installed(ctx)).states
    assert state.status == "modified" and not state.missing
    assert state.problem == REASON.format(outside)
    _, found = sync.differences(ctx)
    assert [(d.key, d.kind, d.problem) for d in found] == [("demo", "modified",
                                                             REASON.format(outside))]
    assert (agent / "skill" / "demo" / "references" / "x").is_symlink()  # left as found


def test_a_folder_replaced_by_a_link_and_a_removed_one_are_told_apart(
        ctx, plugins, agent, src, tmp_path: Path) -> None:
    pipeline.install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
    folder = agent / "skill" / "demo"
    folder.rename(tmp_path / "moved")
    assert outdated.installed_bundle(folder) == (None, None)  # missing
    folder.symlink_to(tmp_path / "moved")
    assert outdated.installed_bundle(folder) == (
        None, f"replaced after install by a link to {tmp_path / 'moved'}")


@pytest.fixture
def planted(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    write_skill(tmp_path / "src", "demo")
    code, _, err = run_cli(capsys, "skill", "install", str(tmp_path / "src" / "demo"),
                           "--approve")
    assert code == 0, err
    skill = home / ".lemon" / "agent" / "skill" / "demo"
    (skill / "references").mkdir()
    (skill / "references" / "x").symlink_to("/etc")
    return skill


def test_check_outdated_and_sync_give_one_verdict(capsys, planted: Path) -> None:
    reason = REASON.format("/etc")
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--offline")
    assert code == 0 and reason in out and "(ready)" not in out and "missing" not in out
    code, out, _ = run_cli(capsys, "skill", "check", "demo", "--offline", "--json")
    document = json.loads(out)
    assert document["ready"] is False and document["install"]["problem"] == reason
    assert document["install"]["status"] == "modified"
    code, out, err = run_cli(capsys, "skill", "outdated")
    assert code == 1 and "modified" in out and reason in err
    code, _, err = run_cli(capsys, "skill", "sync", "--frozen")
    assert code == 1 and f"demo (global): {reason}" in err and "not installed" not in err
    assert (planted / "references" / "x").is_symlink()
