"""Backup names carry their owner; the sweep settles only a dead owner's backups, and only
when it can tell what to do (the real kill -9 runs are in tests/cli/test_skill_install_killed.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lemon_core.install import backups
from lemon_core.install.owner import Owner, hostname, this_process
from tests.helpers import write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _dead_owner() -> Owner:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    return Owner(int(child.stdout), hostname(), None)


def test_a_backup_name_says_whose_it_is(tmp_path: Path) -> None:
    me = this_process()
    path = backups.backup_path(tmp_path / "demo", me)
    assert path.name.startswith(".demo.backup-") and f"-{me.pid}-" in path.name
    found = backups.parse(tmp_path, path.name)
    assert found == backups.Backup(path, tmp_path / "demo", me)
    assert backups.parse(tmp_path, ".demo.backup-deadbeef") == backups.Backup(
        tmp_path / ".demo.backup-deadbeef", tmp_path / "demo", None)  # an older lemon's
    other_host = path.name.rsplit("-", 1)[0] + "-00000000"
    assert backups.parse(tmp_path, other_host).owner is None  # type: ignore[union-attr]
    assert backups.parse(tmp_path, "demo") is None
    assert backups.parse(tmp_path, ".demo.staging-abc") is None


def test_only_a_dead_owners_backup_is_settled(tmp_path: Path) -> None:
    skills = tmp_path / "skill"
    write_skill(skills, "live")
    os.rename(skills / "live", backups.backup_path(skills / "live", this_process()))
    write_skill(skills, "old")
    os.rename(skills / "old", skills / ".old.backup-deadbeef")
    write_skill(skills, "gone")
    os.rename(skills / "gone", backups.backup_path(skills / "gone", _dead_owner()))
    before = sorted(p.name for p in skills.iterdir())
    notes = backups.sweep(skills, {})
    assert len(notes) == 1 and notes[0].startswith(f"restored {skills / 'gone'}")
    after = sorted(p.name for p in skills.iterdir())
    assert after == sorted([n for n in before if not n.startswith(".gone.")] + ["gone"])


def test_two_backups_of_a_missing_skill_are_left_with_a_note(tmp_path: Path) -> None:
    skills = tmp_path / "skill"
    dead = _dead_owner()
    for _ in range(2):
        write_skill(skills, "demo")
        os.rename(skills / "demo", backups.backup_path(skills / "demo", dead))
    before = sorted(p.name for p in skills.iterdir())
    notes = backups.sweep(skills, {})
    assert notes and all("2 backups" in n for n in notes)
    assert sorted(p.name for p in skills.iterdir()) == before


def _record(key: str) -> object:
    from lemon_core.state.records import structure_record

    return structure_record(key, {"source_kind": "local", "source_id": "/src", "bundle_hash":
                                  "sha256:00", "audit_status": "pass"})


def test_a_killed_removals_leftovers_are_undone_or_finished(tmp_path: Path) -> None:
    """``remove`` renames the skill to ``.<name>.removing-…``, deletes the record, then the
    folder: killed before the record went, the skill comes back; after, the leftover goes."""
    skills = tmp_path / "skill"
    dead = _dead_owner()
    for name in ("kept", "removed", "reinstalled", "live"):
        write_skill(skills, name)
        owner = this_process() if name == "live" else dead
        os.rename(skills / name, backups.backup_path(skills / name, owner, backups.REMOVING))
    write_skill(skills, "reinstalled")
    records = {key: _record(key) for key in ("kept", "reinstalled", "live")}
    notes = backups.sweep(skills, records)
    assert sorted(n.split(" ", 1)[0] for n in notes) == ["removed", "removed", "restored"]
    names = sorted(p.name for p in skills.iterdir())
    assert "kept" in names and "removed" not in names and "reinstalled" in names
    assert [n for n in names if ".removing-" in n] == [
        n for n in names if n.startswith(".live.removing-")]  # a live removal is not touched
    found = backups.parse(skills, next(n for n in names if n.startswith(".live.")))
    assert found is not None and found.mark == backups.REMOVING
