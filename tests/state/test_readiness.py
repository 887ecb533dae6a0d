import json
import os
import stat
import sys
from pathlib import Path

import attrs
import pytest

from lemon_core.manifest.load import load_manifest
from lemon_core.models import SkillEntry, SkillManifest, Verification
from lemon_core.state.readiness import compute_status
from lemon_core.state.records import LockRecord

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _entry(tmp_path: Path, **fields) -> SkillEntry:
    folder = tmp_path / "skill"
    folder.mkdir(exist_ok=True)
    return SkillEntry("k", "project", tmp_path, folder, folder / "SKILL.md",
                      SkillManifest(**fields))


def _verifiable(tmp_path: Path, command: str, expect_exit: int = 0,
                expect_output: str | None = None, extra: str = "") -> SkillEntry:
    """An entry loaded from a real SKILL.md declaring this verification (``--verify`` re-reads
    the file, so the file is what counts)."""
    folder = tmp_path / "skill"
    folder.mkdir(exist_ok=True)
    lines = [f"  command: {json.dumps(command)}", f"  expect_exit: {expect_exit}"]
    if expect_output is not None:
        lines.append(f"  expect_output: {json.dumps(expect_output)}")
    (folder / "SKILL.md").write_text(
        "---\nname: k\ndescription: Use when testing.\n" + extra + "verification:\n"
        + "\n".join(lines) + "\n---\nBody.\n", encoding="utf-8")
    result = load_manifest(folder / "SKILL.md", key="k")
    assert result.manifest is not None, result.diagnostics
    return SkillEntry("k", "project", str(tmp_path), str(folder), str(folder / "SKILL.md"),
                      result.manifest)


def _program(directory: Path, name: str) -> None:
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_active_when_nothing_is_required(make_ctx, tmp_path: Path) -> None:
    status = compute_status(_entry(tmp_path), make_ctx(), disabled=False)
    assert status.state == "active" and status.ready and status.platform_ok


def test_missing_lists_use_the_contexts_path_and_environment(make_ctx, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    _program(bin_dir, "present")
    entry = _entry(tmp_path, requires_bins=("present", "absent"), requires_config=("CFG",),
                   required_environment_variables=("CFG", "EMPTY", "SET", "OPT"),
                   optional_environment_variables=("OPT",), requires_tools=("present", "tool"))
    ctx = make_ctx(PATH=str(bin_dir), EMPTY="", SET="1")
    status = compute_status(entry, ctx, disabled=False)
    assert status.state == "not_ready"
    assert status.missing_bins == ("absent",)
    assert status.missing_config == ("CFG",)
    assert status.missing_env_vars == ("CFG", "EMPTY")
    assert status.missing_tools == ("tool",)
    ready = compute_status(entry, make_ctx(PATH=str(bin_dir), CFG="x", EMPTY="y", SET="1"),
                           disabled=False)
    assert ready.missing_bins == ("absent",)  # PATH is read now, never cached
    _program(bin_dir, "absent")
    _program(bin_dir, "tool")
    assert compute_status(entry, make_ctx(PATH=str(bin_dir), CFG="x", EMPTY="y", SET="1"),
                          disabled=False).state == "active"


def test_state_precedence(make_ctx, tmp_path: Path) -> None:
    entry = _entry(tmp_path, platforms=("darwin",), requires_bins=("definitely-absent-bin",))
    ctx = make_ctx()
    block = LockRecord("k", "git", audit_status="block")
    assert compute_status(entry, ctx, disabled=True, lock_record=block).state == "disabled"
    assert compute_status(entry, ctx, disabled=False, lock_record=block).state == \
        "platform_incompatible"
    on_linux = _entry(tmp_path, platforms=("linux",), requires_bins=("definitely-absent-bin",))
    assert compute_status(on_linux, ctx, disabled=False, lock_record=block).state == "blocked"
    assert compute_status(on_linux, ctx, disabled=False,
                          lock_record=LockRecord("k", "git", audit_status="warn")
                          ).state == "not_ready"
    anywhere = _entry(tmp_path, platforms=("any",))
    assert compute_status(anywhere, ctx.evolve(platform="win32"), disabled=False).platform_ok


def test_verification_runs_only_on_request_in_the_skill_folder(make_ctx, tmp_path: Path) -> None:
    marker = tmp_path / "skill" / "ran"
    entry = _verifiable(
        tmp_path, f"{sys.executable} -c \"open('ran','w'); print('Client Version 1')\"",
        expect_output="Client Version")
    status = compute_status(entry, make_ctx(), disabled=False)
    assert status.verification is None and not marker.exists()
    status = compute_status(entry, make_ctx(), disabled=False, verify=True)
    assert marker.exists()
    assert status.verification.passed and status.verification.exit_code == 0
    assert status.state == "active"


@pytest.mark.parametrize("command, expect_exit, expect_output, exit_code", [
    ("exit 3", 0, None, 3),
    ("exit 3", 3, None, 3),
    ("echo nope", 0, "Client", 0),
])
def test_verification_outcomes(make_ctx, tmp_path: Path, command, expect_exit, expect_output,
                               exit_code) -> None:
    entry = _verifiable(tmp_path, command, expect_exit, expect_output)
    status = compute_status(entry, make_ctx(), disabled=False, verify=True)
    expected = expect_exit == exit_code and expect_output is None
    assert status.verification.exit_code == exit_code
    assert status.verification.passed is expected
    assert status.state == ("active" if expected else "not_ready")


def test_verification_timeout(make_ctx, tmp_path: Path) -> None:
    entry = _verifiable(tmp_path, "sleep 5")
    status = compute_status(entry, make_ctx(), disabled=False, verify=True, verify_timeout=0.2)
    assert not status.verification.passed and "timed out" in status.verification.error
    assert status.state == "not_ready"
    assert os.path.isdir(tmp_path / "skill")


def test_verify_runs_the_command_of_the_skill_md_never_the_entrys(make_ctx, tmp_path: Path
                                                                   ) -> None:
    """An entry may come from a snapshot or the persistent cache: what ``--verify`` runs, and
    the status it reports, come from the SKILL.md as it is now."""
    entry = _verifiable(tmp_path, "echo from-the-file", expect_output="from-the-file")
    forged = attrs.evolve(entry, manifest=attrs.evolve(
        entry.manifest, verification=Verification("touch forged"), requires_bins=()))
    status = compute_status(forged, make_ctx(), disabled=False, verify=True)
    assert not (tmp_path / "skill" / "forged").exists()
    assert status.verification.passed and status.state == "active"
    # and the rest of the status is the file's too
    _verifiable(tmp_path, "true", extra="requires:\n  bins: [definitely-absent-bin]\n")
    status = compute_status(forged, make_ctx(), disabled=False, verify=True)
    assert status.missing_bins == ("definitely-absent-bin",) and status.state == "not_ready"


def test_verify_without_a_loadable_skill_md_runs_nothing(make_ctx, tmp_path: Path) -> None:
    entry = _verifiable(tmp_path, "touch ran")
    skill_md = Path(entry.path)
    skill_md.write_text("---\nname: [unclosed\n---\n", encoding="utf-8")
    status = compute_status(entry, make_ctx(), disabled=False, verify=True)
    assert not (tmp_path / "skill" / "ran").exists()
    assert status.state == "not_ready" and not status.verification.passed
    assert "no longer loads" in status.verification.error
    skill_md.unlink()
    outside = tmp_path / "elsewhere.md"
    outside.write_text("---\nname: k\ndescription: d\nverification:\n  command: touch ran\n"
                       "---\n", encoding="utf-8")
    skill_md.symlink_to(outside)
    status = compute_status(entry, make_ctx(), disabled=False, verify=True)
    assert not (tmp_path / "skill" / "ran").exists()
    assert "inside the skill folder" in status.verification.error
