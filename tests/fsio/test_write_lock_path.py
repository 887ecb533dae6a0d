"""What stands at a lock path when it is not a lock directory (issue 17 §8).

A link or a regular file at ``<name>.lock`` is no lock lemon made: the writer says what is there
and what to do at once, and never follows the link (to read a planted owner) or removes it.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lemon_core.errors import BusyError
from lemon_core.fsio.write import file_lock, lock_holder, lock_path, update_file

pytestmark = pytest.mark.integration  # starts processes or loopback servers

LEMON = [sys.executable, "-c",
         "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()"]


def _dead_pid() -> str:
    return subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_link_at_the_lock_path_is_named_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # A planted "owner" behind the link: read through the link, it made a stale-lock story.
    (elsewhere / "owner").write_text(f"{_dead_pid()}\n{socket.gethostname()}\ntok\n")
    lock_path(path).symlink_to(elsewhere)
    started = time.monotonic()
    with pytest.raises(BusyError) as caught:
        update_file(path, lambda snapshot: b"x", timeout=5)
    message = str(caught.value)
    assert f"is a symbolic link to {elsewhere}, not a lock lemon made" in message
    assert f"remove {lock_path(path)} yourself" in message
    assert "stale" not in message and "records no owner" not in message
    assert time.monotonic() - started < 2
    assert lock_path(path).is_symlink() and (elsewhere / "owner").exists()
    assert not path.exists()
    assert lock_holder(path) is None  # no owner is ever read through the link


def test_a_regular_file_at_the_lock_path_is_named_at_once(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    lock_path(path).write_text("not a lock\n")
    started = time.monotonic()
    with (pytest.raises(BusyError, match=r"is a regular file, not a lock lemon made") as caught,
          file_lock(path, timeout=5)):
        pass
    assert "stale" not in str(caught.value)
    assert time.monotonic() - started < 2  # neither waited out nor aged into "stale"
    assert lock_path(path).read_text() == "not a lock\n"


@pytest.mark.parametrize("scope", ["project", "global"])
def test_the_cli_says_what_stands_at_the_lock_path(tmp_path: Path, scope: str) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".lemon").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "agent").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LEMON_", "CLAUDE_"))}
    env.update(HOME=str(tmp_path / "home"), LEMON_AGENT_DIR=str(tmp_path / "agent"),
               LEMON_CACHE_DIR=str(tmp_path / "cache"), LEMON_MCP_EXTERNAL_DISCOVERY="0")
    folder = project / ".lemon" if scope == "project" else tmp_path / "agent"
    lock = folder / "mcp.json.lock"
    lock.symlink_to("/etc")
    extra = ["--global"] if scope == "global" else []
    done = subprocess.run([*LEMON, "mcp", "add", "demo", "--stdio", "cmd", *extra], cwd=project,
                          env=env, capture_output=True, check=False, text=True, timeout=60)
    assert done.returncode == 1
    # In a project, any link on the way is a planted one (fsio.beneath names it); in the user's
    # own folder the lock path says it is no lock lemon made.
    expected = ("mcp.json.lock is a symbolic link (to /etc)" if scope == "project"
                else "is a symbolic link to /etc, not a lock lemon made")
    assert expected in done.stderr
    assert "stale" not in done.stderr
    assert lock.is_symlink() and not (folder / "mcp.json").exists()
