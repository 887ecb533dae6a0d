"""A ``kill -9`` of the real ``lemon skill install`` leaves its staging folder; the next install
into the same folder sweeps it (with a note), and never the staging folder of an install that
is still running (here: a real ``lemon`` on a terminal, waiting at its "Install it?" prompt).
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import write_skill

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")]


def _read_until(fd: int, text: str, timeout: float = 60.0) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode() not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} from lemon; it printed {seen.decode(errors='replace')!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            assert chunk, f"lemon ended before {text!r}: {seen.decode(errors='replace')!r}"
            seen += chunk
    return seen.decode(errors="replace")


def _waiting_install(lemon: str, source: Path, env: dict[str, str],
                     cwd: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``lemon skill install SOURCE`` on a terminal, answered up to its "Install it?"."""
    main, terminal = os.openpty()
    process = subprocess.Popen([lemon, "skill", "install", str(source)], env=env, cwd=cwd,
                               stdin=terminal, stderr=terminal, stdout=subprocess.DEVNULL)
    os.close(terminal)
    _read_until(main, "[y/N]")  # the question before the fetch
    os.write(main, b"y\n")
    _read_until(main, "Install it?")  # fetched, checked and audited: its staging folder exists
    return process, main


def _install(lemon: str, source: Path, env: dict[str, str], cwd: Path) -> dict[str, object]:
    done = subprocess.run([lemon, "skill", "install", str(source), "--approve", "--json"],
                          env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    (item,) = json.loads(done.stdout)["installed"]
    return item


def test_a_killed_install_is_swept_by_the_next_never_a_live_one(home: Path,
                                                                 tmp_path: Path) -> None:
    lemon = shutil.which("lemon")
    assert lemon is not None
    for name in ("first", "second", "third"):
        write_skill(tmp_path / "src", name)
    env = {**os.environ, "HOME": str(home), "LEMON_CACHE_DIR": str(tmp_path / "cache")}
    skills = home / ".lemon" / "agent" / "skill"

    waiting, terminal = _waiting_install(lemon, tmp_path / "src" / "first", env, tmp_path)
    try:
        (live,) = [p for p in skills.iterdir() if p.name.startswith(".first.staging-")]
        item = _install(lemon, tmp_path / "src" / "second", env, tmp_path)
        assert live.is_dir() and not any("interrupted" in n for n in item["notes"])  # type: ignore[union-attr]
        waiting.send_signal(signal.SIGKILL)  # kill -9 at the prompt
        waiting.wait(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
            waiting.wait(timeout=30)
        os.close(terminal)
    assert live.is_dir()  # nothing could remove it
    item = _install(lemon, tmp_path / "src" / "third", env, tmp_path)
    assert not live.exists()
    (note,) = [n for n in item["notes"] if "interrupted install" in n]  # type: ignore[union-attr]
    assert str(live) in note and str(waiting.pid) in note
    assert sorted(p.name for p in skills.iterdir()) == ["second", "third"]
