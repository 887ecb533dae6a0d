"""Backups left by a ``kill -9`` during activation are settled by the next command in that
skills folder; a live install's backup never is.

The installs here are real ``lemon`` processes (``lemon_core.cli.main`` in a fresh
interpreter). One of them stops at a chosen point of its activation: its ``os.rename`` (as the
activation module sees it) signals a file and waits after moving the installed copy aside, or
its commit waits after the lockfile record was written. The test then kills it with SIGKILL,
or lets it go on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lemon_core.fsio.tree import bundle_hash, scan_tree
from tests.helpers import write_skill

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")]

#: A lemon whose activation stops at ``STOP_AT`` (``aside``: between its two renames;
#: ``commit``: after the lockfile record, before the backup is deleted) until ``GO`` exists.
PAUSING = """
import os, sys, time
from pathlib import Path
from lemon_core.install import activate, moves
signal_file, go, where = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def wait():
    signal_file.write_text("stopped")
    while not go.exists():
        time.sleep(0.02)

class Renames:
    def __getattr__(self, name):
        return getattr(os, name)

    def rename(self, source, dest):
        os.rename(source, dest)
        if where == "aside" and ".backup-" in str(dest):
            wait()

if where == "aside":
    moves.os = Renames()  # activation renames through install.moves
else:
    commit = activate.Activation.commit
    def paused_commit(self):
        wait()
        commit(self)
    activate.Activation.commit = paused_commit
from lemon_core.cli import main
main(sys.argv[4:])
"""


def _env(home: Path, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "LEMON_CACHE_DIR": str(tmp_path / "cache")}


def _install(source: Path, env: dict[str, str], cwd: Path, *more: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", "from lemon_core.cli import main; main()",
                           "skill", "install", str(source), "--approve", "--json", *more],
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (item,) = json.loads(done.stdout)["installed"]
    return item


def _stopped_install(source: Path, env: dict[str, str], cwd: Path, where: str,
                     tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """``lemon skill install SOURCE --force`` stopped at ``where``; returns it and its GO file."""
    stopped, go = tmp_path / f"stopped-{where}", tmp_path / f"go-{where}"
    process = subprocess.Popen(
        [sys.executable, "-c", PAUSING, str(stopped), str(go), where, "skill", "install",
         str(source), "--approve", "--json", "--force"],
        env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not stopped.exists():
        assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the install never reached its stop"
        time.sleep(0.02)
    return process, go


def _kill(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def _hash(folder: Path) -> str:
    return bundle_hash(folder, scan_tree(folder).entries)


def _record(home: Path, key: str) -> dict[str, object]:
    lock = json.loads((home / ".lemon" / "agent" / "skills.lock.json").read_text())
    return lock["skills"][key]  # type: ignore[no-any-return]


@pytest.fixture
def setup(home: Path, tmp_path: Path) -> tuple[dict[str, str], Path, Path]:
    """demo v1 installed; demo v2 and two other skills to install from ``src``."""
    env = _env(home, tmp_path)
    write_skill(tmp_path / "v1", "demo", body="Version one.\n")
    write_skill(tmp_path / "v2", "demo", body="Version two.\n")
    for name in ("other", "third"):
        write_skill(tmp_path / "src", name)
    _install(tmp_path / "v1" / "demo", env, tmp_path)
    return env, home / ".lemon" / "agent" / "skill", tmp_path


def test_killed_between_the_renames_the_next_install_puts_the_old_copy_back(setup) -> None:
    env, skills, tmp_path = setup
    v1 = _hash(skills / "demo")
    process, _ = _stopped_install(tmp_path / "v2" / "demo", env, tmp_path, "aside", tmp_path)
    _kill(process)
    (backup,) = [p for p in skills.iterdir() if p.name.startswith(".demo.backup-")]
    assert not (skills / "demo").exists() and (skills / ".demo.lock").is_dir()  # as it died

    item = _install(tmp_path / "src" / "other", env, tmp_path)  # another skill, same folder
    (note,) = [n for n in item["notes"] if "backup" in n]  # type: ignore[union-attr]
    assert any("staging folder of an interrupted install" in n
               for n in item["notes"])  # type: ignore[union-attr]
    assert f"restored {skills / 'demo'}" in note and f"process {process.pid}" in note
    assert _hash(skills / "demo") == v1 == _record(tmp_path / "home", "demo")["bundle_hash"]
    assert not backup.exists() and not (skills / ".demo.lock").exists()
    assert sorted(p.name for p in skills.iterdir()) == ["demo", "other"]
    replaced = _install(tmp_path / "v2" / "demo", env, tmp_path, "--force")  # no stale lock
    assert replaced["replaced"] and _hash(skills / "demo") != v1


def test_killed_after_the_record_the_next_install_deletes_the_backup(setup) -> None:
    env, skills, tmp_path = setup
    process, _ = _stopped_install(tmp_path / "v2" / "demo", env, tmp_path, "commit", tmp_path)
    _kill(process)
    (backup,) = [p for p in skills.iterdir() if p.name.startswith(".demo.backup-")]
    v2 = _hash(skills / "demo")
    assert _record(tmp_path / "home", "demo")["bundle_hash"] == v2

    item = _install(tmp_path / "src" / "other", env, tmp_path)
    (note,) = [n for n in item["notes"] if "backup" in n]  # type: ignore[union-attr]
    assert f"removed {backup}" in note
    assert _hash(skills / "demo") == v2 and not backup.exists()
    assert sorted(p.name for p in skills.iterdir()) == ["demo", "other"]


def test_killed_before_the_record_both_copies_are_left_with_a_note(setup) -> None:
    env, skills, tmp_path = setup
    v1 = _hash(skills / "demo")
    process, _ = _stopped_install(tmp_path / "v2" / "demo", env, tmp_path, "aside", tmp_path)
    (backup,) = [p for p in skills.iterdir() if p.name.startswith(".demo.backup-")]
    # as if it had died just after its second rename: the new copy in place, not recorded
    write_skill(skills, "demo", body="Version two.\n")
    _kill(process)

    item = _install(tmp_path / "src" / "other", env, tmp_path)
    (note,) = [n for n in item["notes"] if "backup" in n]  # type: ignore[union-attr]
    assert f"left {backup}" in note and "before recording it" in note
    assert backup.is_dir() and _hash(backup) == v1 and (skills / "demo").is_dir()


def test_a_live_install_keeps_its_backup(setup) -> None:
    env, skills, tmp_path = setup
    process, go = _stopped_install(tmp_path / "v2" / "demo", env, tmp_path, "aside", tmp_path)
    try:
        (backup,) = [p for p in skills.iterdir() if p.name.startswith(".demo.backup-")]
        item = _install(tmp_path / "src" / "other", env, tmp_path)
        assert not any("interrupted" in n for n in item["notes"])  # type: ignore[union-attr]
        assert backup.is_dir() and not (skills / "demo").exists()  # untouched
        go.write_text("go")
        assert process.wait(timeout=120) == 0, process.stderr.read()  # type: ignore[union-attr]
    finally:
        if process.poll() is None:
            _kill(process)
    assert sorted(p.name for p in skills.iterdir()) == ["demo", "other"]
    assert _record(tmp_path / "home", "demo")["bundle_hash"] == _hash(skills / "demo")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_dead_installs_backup_is_settled_beside_a_live_lemon_at_its_prompt(setup) -> None:
    import shutil

    from tests.cli.test_skill_install_stale import _waiting_install

    env, skills, tmp_path = setup
    lemon = shutil.which("lemon")
    assert lemon is not None
    v1 = _hash(skills / "demo")
    waiting, terminal = _waiting_install(lemon, tmp_path / "src" / "third", env, tmp_path)
    try:
        (live,) = [p for p in skills.iterdir() if p.name.startswith(".third.staging-")]
        process, _ = _stopped_install(tmp_path / "v2" / "demo", env, tmp_path, "aside",
                                      tmp_path)
        _kill(process)  # while the live lemon waits at its prompt
        item = _install(tmp_path / "src" / "other", env, tmp_path)
        assert any(f"restored {skills / 'demo'}" in n for n in item["notes"])  # type: ignore[union-attr]
        assert live.is_dir() and _hash(skills / "demo") == v1
        os.write(terminal, b"y\n")  # the live install goes on
        assert waiting.wait(timeout=120) == 0
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait(timeout=30)
        os.close(terminal)
    assert sorted(p.name for p in skills.iterdir()) == ["demo", "other", "third"]


#: A ``lemon skill remove`` that stops ``aside`` (after moving the skill to
#: ``.<name>.removing-…``, its record still there) or ``unrecorded`` (after deleting the record,
#: before deleting the folder) until ``GO`` exists.
PAUSING_REMOVE = """
import sys, time
from pathlib import Path
from lemon_core.context import LemonContext
from lemon_core.install import remove
from lemon_core.install.transaction import Steps
from lemon_core.plugins import load_plugins
signal_file, go, where = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def wait():
    signal_file.write_text("stopped")
    while not go.exists():
        time.sleep(0.02)

class Paused(Steps):  # the removal's own steps, injected
    def set_aside(self, scope, target, aside):
        super().set_aside(scope, target, aside)
        if where == "aside":
            wait()

    def record(self, scope, changes):
        done = super().record(scope, changes)
        if where == "unrecorded":
            wait()
        return done

ctx = LemonContext.from_environment()
plugins = load_plugins(ctx, needs=("lemon.sources", "lemon.auditors"))
remove.remove(sys.argv[6], ctx, plugins=plugins, approve=True, steps=Paused())
"""


@pytest.mark.parametrize("where", ["aside", "unrecorded"])
def test_a_killed_remove_is_undone_or_finished_by_the_next_command(setup, where) -> None:
    env, skills, tmp_path = setup
    v1 = _hash(skills / "demo")
    stopped, go = tmp_path / "stopped-remove", tmp_path / "go-remove"
    process = subprocess.Popen(
        [sys.executable, "-c", PAUSING_REMOVE, str(stopped), str(go), where, "skill", "remove",
         "demo", "--approve"],
        env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not stopped.exists():
        assert process.poll() is None, process.stderr.read()  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the remove never reached its stop"
        time.sleep(0.02)
    _kill(process)
    (leftover,) = [p for p in skills.iterdir() if p.name.startswith(".demo.removing-")]
    assert not (skills / "demo").exists()

    item = _install(tmp_path / "src" / "other", env, tmp_path)  # another skill, same folder
    (note,) = [n for n in item["notes"] if "removal" in n]  # type: ignore[union-attr]
    assert f"process {process.pid}" in note and not leftover.exists()
    lock = json.loads((tmp_path / "home" / ".lemon" / "agent" / "skills.lock.json").read_text())
    if where == "aside":  # the record was still there: the skill is as before the remove
        assert note.startswith(f"restored {skills / 'demo'}")
        assert _hash(skills / "demo") == v1 == lock["skills"]["demo"]["bundle_hash"]
        assert sorted(p.name for p in skills.iterdir()) == ["demo", "other"]
    else:  # the record was gone: the remove is finished
        assert note.startswith(f"removed {leftover}") and "demo" not in lock["skills"]
        assert sorted(p.name for p in skills.iterdir()) == ["other"]
