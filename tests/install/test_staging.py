"""Staging folders of killed installs are swept by the next install; a live one never is.

The owners are real processes: a child that made a staging folder with the real
``make_staging`` and is still running, one killed with SIGKILL, and (in
``tests/cli/test_skill_install_stale.py``) the real ``lemon`` CLI waiting at its prompt.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lemon_core.install import staging
from lemon_core.install.pipeline import InstallRequest, install
from tests.install.support import skill_folder

pytestmark = pytest.mark.integration  # starts processes or loopback servers

CHILD = """
import sys, time
from pathlib import Path
from lemon_core.install.staging import make_staging
print(make_staging(Path(sys.argv[1]), sys.argv[2]), flush=True)
time.sleep(120)
"""


def _child(skills: Path, name: str) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen([sys.executable, "-c", CHILD, str(skills), name],
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, Path(process.stdout.readline().strip())


def _killed(skills: Path, name: str) -> Path:
    process, folder = _child(skills, name)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    return folder


def _write_owner(folder: Path, pid: int, host: str, started: str = "") -> None:
    (folder / staging.OWNER).write_text(f"{pid}\n{host}\n{started}\n")


def _age(folder: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(folder, (then, then))


def test_the_staging_folder_records_its_owner(tmp_path: Path) -> None:
    folder = staging.make_staging(tmp_path / "skill", "demo")
    assert folder.name.startswith(".demo.staging-") and (folder / staging.TREE).is_dir()
    owner = staging.read_owner(folder)
    assert owner is not None and owner.pid == os.getpid()
    assert owner.host == socket.gethostname()
    assert staging.is_stale(folder) is False


def test_a_killed_install_is_swept_and_a_live_one_kept(tmp_path: Path) -> None:
    skills = tmp_path / "skill"
    live, live_folder = _child(skills, "alive")
    try:
        dead_folder = _killed(skills, "dead")
        assert dead_folder.is_dir() and live_folder.is_dir()
        notes = staging.sweep_stale(skills)
        assert not dead_folder.exists()
        assert live_folder.is_dir() and (live_folder / staging.TREE).is_dir()
        (note,) = notes
        assert str(dead_folder) in note and "interrupted install" in note
        assert staging.sweep_stale(skills) == []  # the live one, again, is not touched
    finally:
        live.kill()
        live.wait(timeout=30)
    assert staging.sweep_stale(skills) and not live_folder.exists()


def test_a_reused_pid_is_not_the_owner(tmp_path: Path) -> None:
    folder = staging.make_staging(tmp_path, "demo")
    me = staging.this_process()
    if me.started is None:
        pytest.skip("this system does not tell a process's start time")
    _write_owner(folder, me.pid, me.host, str(me.started + 1))
    assert staging.is_stale(folder)
    _write_owner(folder, me.pid, me.host, str(me.started))
    assert staging.is_stale(folder) is False


@pytest.mark.parametrize("owner", ["none", "empty", "other-host"])
def test_an_unverifiable_owner_is_stale_only_when_old(tmp_path: Path, owner: str) -> None:
    folder = staging.make_staging(tmp_path, "demo")
    if owner == "none":
        (folder / staging.OWNER).unlink()
    elif owner == "empty":  # what a reader sees while the owner is being written
        (folder / staging.OWNER).write_bytes(b"")
    else:
        _write_owner(folder, 1, "another-host.example")
    assert staging.is_stale(folder) is False
    assert staging.sweep_stale(tmp_path) == [] and folder.is_dir()
    _age(folder, staging.STALE_AGE + 60)
    assert staging.is_stale(folder)
    assert len(staging.sweep_stale(tmp_path)) == 1 and not folder.exists()


def test_only_staging_folders_are_swept(tmp_path: Path) -> None:
    (tmp_path / "skill-with.staging-in-name").mkdir()  # not hidden: a skill, never touched
    (tmp_path / ".x.staging-file").write_text("a file, not a staging folder")
    target = tmp_path / "elsewhere"
    target.mkdir()
    os.symlink(target, tmp_path / ".y.staging-link")
    _age(tmp_path / "skill-with.staging-in-name", staging.STALE_AGE * 2)
    assert staging.sweep_stale(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".x.staging-file", ".y.staging-link", "elsewhere", "skill-with.staging-in-name"]


def test_an_install_sweeps_with_a_note(ctx, plugins, agent: Path, src: Path) -> None:
    skills = agent / "skill"
    dead = _killed(skills, "demo")
    (dead / staging.TREE / "SKILL.md").write_text("half fetched")
    live, live_folder = _child(skills, "other")
    try:
        result = install(InstallRequest(str(skill_folder(src, "demo")), approve=True), ctx, plugins)
        assert not dead.exists() and live_folder.is_dir()
        assert any(str(dead) in note and "interrupted install" in note
                   for note in result.notes)
        assert sorted(p.name for p in skills.iterdir()) == sorted(["demo", live_folder.name])
    finally:
        live.kill()
        live.wait(timeout=30)
