"""fsio.write: lock hand-over under contention, stale-lock verdicts, writing through symbolic
links, and a file where a folder should be.

The stress tests run many rounds of 30 writer *processes*. Set ``LEMON_STRESS=1`` for the long
run (more rounds, and the real CLI for ``lemon mcp add`` and ``lemon skill disable``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lemon_core.errors import BusyError
from lemon_core.fsio import write as fsio
from lemon_core.fsio.write import (
    Snapshot,
    UnwritableError,
    file_lock,
    lock_path,
    update_file,
)
from tests.helpers import write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers

STRESS = os.environ.get("LEMON_STRESS") == "1"
WRITERS = 30
LEMON = [sys.executable, "-c",
         "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"]


def _append(me: str):
    def transform(snapshot: Snapshot) -> bytes:
        data = json.loads(snapshot.content) if snapshot.content else []
        return json.dumps([*data, me]).encode()

    return transform


def _writer_round(path: Path, timeout: float = 10.0) -> tuple[list[str], list[str]]:
    """Fork ``WRITERS`` processes that start together and each append their id once; reap
    them as they finish (a finished holder's process id is then really gone, as with separate
    CLI runs). Returns (ids that succeeded, failure messages)."""
    start = time.time() + 0.05
    children: dict[int, tuple[str, int]] = {}
    for index in range(WRITERS):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 0
            try:
                os.close(read_end)
                while time.time() < start:
                    time.sleep(0.0005)
                began = time.monotonic()
                try:
                    update_file(path, _append(str(index)), timeout=timeout)
                except Exception as exc:  # noqa: BLE001
                    os.write(write_end, f"after {time.monotonic() - began:.2f} s: {exc}".encode())
                    code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        children[pid] = (str(index), read_end)
    ok: list[str] = []
    failed: list[str] = []
    for _ in range(WRITERS):
        pid, status = os.wait()
        me, read_end = children[pid]
        message = os.read(read_end, 65536).decode()
        os.close(read_end)
        (ok if os.waitstatus_to_exitcode(status) == 0 else failed).append(me if not message
                                                                          else message)
    return ok, failed


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_thirty_writers_never_fail_inside_their_timeout(tmp_path: Path) -> None:
    """Before the fix, 18 of 30 rounds had a writer failing within 0.4 s with "busy … held by
    process N": a waiter had judged the lock stale from the previous holder's process id."""
    rounds = 100 if STRESS else 5
    for round_ in range(rounds):
        path = tmp_path / f"round{round_}" / "state.json"
        ok, failed = _writer_round(path)
        assert failed == [], f"round {round_}: {failed[0]}"
        assert sorted(json.loads(path.read_text())) == sorted(ok)  # no update lost
        assert len(ok) == WRITERS
        assert sorted(p.name for p in path.parent.iterdir()) == ["state.json"]


def test_a_lock_that_passed_to_a_live_holder_is_not_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race, made deterministic: the waiter reads holder A's record, A releases and exits,
    B takes the lock, and only then does the waiter find A's process gone."""
    path = tmp_path / "state.json"
    lock = lock_path(path)
    lock.mkdir()
    (lock / "owner").write_text(f"999999\n{socket.gethostname()}\naaaa\n")
    handed_over = threading.Event()

    def pid_alive(pid: int) -> bool:
        if not handed_over.is_set():  # A is gone; B (alive: this process) holds the lock
            (lock / "owner").write_text(f"{os.getpid()}\n{socket.gethostname()}\nbbbb\n")
            handed_over.set()
            threading.Timer(0.2, lambda: ((lock / "owner").unlink(), lock.rmdir())).start()
        return pid == os.getpid()

    monkeypatch.setattr(fsio, "_pid_alive", pid_alive)
    update_file(path, lambda snapshot: b"mine", timeout=5)
    assert handed_over.is_set() and path.read_bytes() == b"mine" and not lock.exists()


def test_a_lock_of_a_dead_process_is_still_reported_stale(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    lock = lock_path(path)
    lock.mkdir()
    (lock / "owner").write_text(f"{dead}\n{socket.gethostname()}\ntok\n")
    started = time.monotonic()
    with pytest.raises(BusyError, match=f"stale lock from process {dead}"):
        update_file(path, lambda snapshot: b"x", timeout=5)
    assert time.monotonic() - started < 2 and not path.exists()


def test_a_release_never_removes_another_holders_lock(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    lock = lock_path(path)
    with file_lock(path):
        (lock / "owner").write_text(f"{os.getpid()}\n{socket.gethostname()}\nsomeone-else\n")
    assert lock.is_dir()  # the record is not ours any more: left alone


def test_a_failure_while_recording_the_owner_leaves_no_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"

    def fail(*args: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fsio.os, "write", fail)
    with pytest.raises(OSError, match="No space left"), file_lock(path):
        pass
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


# -- symbolic links ---------------------------------------------------------------------------


def test_a_symlink_is_written_through_and_kept(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "project" / ".lemon" / "mcp.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    seen = []
    update_file(link, lambda snapshot: seen.append(snapshot.content) or b"new")
    assert link.is_symlink() and link.resolve() == target
    assert target.read_bytes() == b"new" and seen == [b"old"]
    assert sorted(p.name for p in target.parent.iterdir()) == ["mcp.json"]  # temp and lock gone
    assert sorted(p.name for p in link.parent.iterdir()) == ["mcp.json"]


def test_a_chain_of_links_and_a_relative_link(tmp_path: Path) -> None:
    target = tmp_path / "real" / "skills.json"
    target.parent.mkdir()
    target.write_text("{}")
    middle = tmp_path / "mid" / "skills.json"
    middle.parent.mkdir()
    middle.symlink_to(os.path.relpath(target, middle.parent))
    link = tmp_path / "skills.json"
    link.symlink_to(middle)
    update_file(link, lambda snapshot: b"[]")
    assert target.read_bytes() == b"[]" and link.is_symlink() and middle.is_symlink()


def test_the_lock_is_next_to_the_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text("{}")
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    with file_lock(target), pytest.raises(BusyError, match="busy"):
        update_file(link, lambda snapshot: b"x", timeout=0.1)  # two links, one file, one lock


def test_a_dangling_link_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "mcp.json"
    link.symlink_to(tmp_path / "missing" / "mcp.json")
    with pytest.raises(UnwritableError, match="symbolic link to .*which does not exist"):
        update_file(link, lambda snapshot: b"x")
    assert link.is_symlink() and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("kind", ["other-name", "directory", "fifo"])
def test_a_link_to_anything_but_a_file_of_the_same_name_is_refused(tmp_path: Path,
                                                                   kind: str) -> None:
    target = tmp_path / ("bashrc" if kind == "other-name" else "t" / Path("mcp.json"))
    target.parent.mkdir(exist_ok=True)
    if kind == "other-name":
        target.write_text("keep")
    elif kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    with pytest.raises(UnwritableError, match="only to a regular file also named mcp.json"):
        update_file(link, lambda snapshot: b"x")
    assert link.is_symlink()
    if kind == "other-name":
        assert target.read_text() == "keep"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_a_link_into_a_read_only_folder_says_so(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    target = store / "mcp.json"
    target.write_text("{}")
    store.chmod(0o555)
    link = tmp_path / "mcp.json"
    link.symlink_to(target)
    try:
        with pytest.raises(UnwritableError, match="which lemon cannot write .*replace the link"):
            update_file(link, lambda snapshot: b"x")
    finally:
        store.chmod(0o755)
    assert target.read_text() == "{}" and link.is_symlink()


# -- a file where a folder should be ----------------------------------------------------------


def test_a_file_in_place_of_the_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / ".lemon").write_text("")
    path = tmp_path / ".lemon" / "mcp.json"
    with pytest.raises(UnwritableError) as info:
        update_file(path, lambda snapshot: b"x")
    assert str(info.value) == (
        f"cannot write {path}: {tmp_path / '.lemon'} is a file, not a folder; move it away "
        f"(or rename it) and run the command again"
    )
    with pytest.raises(UnwritableError, match=r"\.lemon is a file, not a folder"):
        fsio.atomic_write_bytes(tmp_path / ".lemon" / "deeper" / "x.json", b"x")


def test_a_fifo_is_never_read_when_editing(tmp_path: Path) -> None:
    path = tmp_path / "skills.json"
    os.mkfifo(path)
    with pytest.raises(UnwritableError, match="not a regular file"):
        update_file(path, lambda snapshot: b"x", timeout=1)


# -- the real CLI, 30 processes at once -------------------------------------------------------


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    (tmp_path / "project" / ".git").mkdir(parents=True)
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("LEMON_", "CLAUDE_CONFIG_DIR"))}
    return {**base, "HOME": str(tmp_path / "home"), "LEMON_AGENT_DIR": str(tmp_path / "agent"),
            "LEMON_CACHE_DIR": str(tmp_path / "cache"), "LEMON_MCP_EXTERNAL_DISCOVERY": "0"}


def _cli_round(commands: list[list[str]], cwd: Path, env: dict[str, str]) -> list[str]:
    procs = [subprocess.Popen([*LEMON, *argv], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for argv in commands]
    failures = []
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        if proc.returncode != 0:
            failures.append(err.strip())
    return failures


@pytest.mark.skipif(not STRESS, reason="LEMON_STRESS=1 (tests/mcp/test_concurrency.py runs 20)")
def test_thirty_concurrent_mcp_adds(tmp_path: Path, cli_env: dict[str, str]) -> None:
    project = tmp_path / "project"
    for round_ in range(20):
        names = [f"r{round_}-s{i:02d}" for i in range(WRITERS)]
        failures = _cli_round([["mcp", "add", n, "--stdio", "cmd"] for n in names], project,
                              cli_env)
        assert failures == [], failures[0]
        data = json.loads((project / ".lemon" / "mcp.json").read_text())
        written = {entry["name"] for entry in data["servers"]}
        assert set(names) <= written  # no update lost


@pytest.mark.slow
def test_thirty_concurrent_skill_disables_and_enables(tmp_path: Path,
                                                     cli_env: dict[str, str]) -> None:
    """6 processes by default (each CLI run scans the skills), 30 with LEMON_STRESS=1."""
    project = tmp_path / "project"
    keys = [f"k{i:02d}" for i in range(WRITERS if STRESS else 6)]
    for key in keys:
        write_skill(project / ".agents" / "skills", key)
    settings = tmp_path / "agent" / "skills.json"
    for round_ in range(20 if STRESS else 2):
        verb = "disable" if round_ % 2 == 0 else "enable"
        failures = _cli_round([["skill", verb, key] for key in keys], project, cli_env)
        assert failures == [], failures[0]
        disabled = set(json.loads(settings.read_text())["disabled"])
        assert disabled == (set(keys) if verb == "disable" else set())  # no update lost
