"""Several processes writing one lemon MCP file: no lost update, no partial file, stale locks.

These tests run real ``lemon`` processes (``python -c 'from lemon_core.cli import main; main()'``
so the test does not depend on the console script being on PATH) with a fake HOME and
LEMON_AGENT_DIR under ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lemon_core.mcp.config import parse_file
from tests.mcp.support import assert_no_secrets

pytestmark = pytest.mark.integration  # starts processes or loopback servers

LEMON = [
    sys.executable,
    "-c",
    "import sys; from lemon_core.cli import main; sys.argv[0] = 'lemon'; main()",
]
SECRET = "sk-CONCURRENT-SECRET-7777"
WRITER = """
import itertools, sys
from lemon_core.context import LemonContext
from lemon_core.mcp.manage import add_server
from lemon_core.mcp.spec import ServerSpec

ctx = LemonContext.from_environment()
for i in itertools.count():
    spec = ServerSpec(name=f"s{i % 40}", transport="stdio", command="c",
                      args=tuple(f"{i}-{n}-" + "x" * 300 for n in range(12)),
                      env={"N": str(i), "TOKEN": "SECRET"})
    add_server(ctx, spec, replace=True)
    print(i, flush=True)
""".replace("SECRET", SECRET)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    base = {
        k: v for k, v in os.environ.items() if not k.startswith(("LEMON_", "CLAUDE_CONFIG_DIR"))
    }
    return {**base, "HOME": str(tmp_path / "home"), "LEMON_AGENT_DIR": str(tmp_path / "agent"),
            "LEMON_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip


def project_file(tmp_path: Path) -> Path:
    return tmp_path / "project" / ".lemon" / "mcp.json"


def check_file(path: Path) -> list[str | None]:
    """The file parses and validates; returns its server names."""
    mcp_file = parse_file(path.read_bytes(), path, "project")
    return [server.name for server in mcp_file.servers]


def leftovers(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


@pytest.mark.slow
@pytest.mark.parametrize("lock_timeout", ["10", "0"])
def test_twenty_concurrent_adds(tmp_path: Path, env: dict[str, str], lock_timeout: str) -> None:
    """Every name ends up in the file, or its process failed with a clear busy error."""
    run_env = {**env, "LEMON_LOCK_TIMEOUT": lock_timeout}
    names = [f"server-{i:02d}" for i in range(20)]
    procs = {
        name: subprocess.Popen(
            [*LEMON, "mcp", "add", name, "--stdio", "cmd", "--env", f"TOKEN={SECRET}", "--", "a"],
            cwd=tmp_path / "project", env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    }  # fmt: skip
    results = {}
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        results[name] = (proc.returncode, out, err)
    path = project_file(tmp_path)
    written = check_file(path)
    succeeded = [name for name, (code, _, _) in results.items() if code == 0]
    for code, out, err in results.values():
        assert_no_secrets(out, err, secrets=(SECRET,))
        if code != 0:
            assert code == 1, err
            assert err.startswith("lemon: ") and "busy" in err and err.count("\n") == 1, err
    assert sorted(written) == sorted(succeeded)  # no lost update, no phantom entry
    if lock_timeout == "10":
        assert sorted(written) == names
    assert leftovers(path) == []  # the lock is released, no temporary file is left


@pytest.mark.slow
def test_a_killed_writer_never_leaves_a_partial_file(tmp_path: Path, env: dict[str, str]) -> None:
    rng = random.Random(20240601)
    path = project_file(tmp_path)
    lock = path.with_name("mcp.json.lock")
    kills = stale = 0
    for _ in range(10):
        proc = subprocess.Popen([sys.executable, "-c", WRITER], cwd=tmp_path / "project", env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        assert proc.stdout is not None
        proc.stdout.readline()  # at least one complete write happened
        time.sleep(rng.uniform(0.0, 0.25))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        kills += 1
        names = check_file(path)  # the old or the new content, never a mix
        assert names and all(name is not None and name.startswith("s") for name in names)
        if lock.exists():
            stale += 1
            # a writer killed between mkdir and recording its pid leaves an ownerless lock,
            # reported as stale once it is 5 s old: wait up to 8 s for that
            result = subprocess.run([*LEMON, "mcp", "disable", "x"], cwd=tmp_path / "project",
                                    env={**env, "LEMON_LOCK_TIMEOUT": "8"}, capture_output=True,
                                    text=True, timeout=60, check=False)  # fmt: skip
            assert result.returncode == 1
            assert "stale lock" in result.stderr and f"remove the directory {lock}" in result.stderr
            assert_no_secrets(result.stdout, result.stderr, secrets=(SECRET,))
            assert "disabled_servers" not in path.read_text()
            for child in lock.iterdir():
                child.unlink()
            lock.rmdir()
        for temp in path.parent.glob(".mcp.json.*.tmp"):
            temp.unlink()  # a killed writer may leave its private temp file; never the target
    assert kills == 10
    result = subprocess.run([*LEMON, "mcp", "list", "--json"], cwd=tmp_path / "project", env=env,
                            capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0 and json.loads(result.stdout)["servers"]
    assert_no_secrets(result.stdout, result.stderr, secrets=(SECRET,))
    assert SECRET in path.read_text()  # the secret is really there, just never printed


def test_a_lock_left_by_a_killed_process_is_reported(tmp_path: Path, env: dict[str, str]) -> None:
    path = project_file(tmp_path)
    holder = (
        "import os, sys; from pathlib import Path; from lemon_core.fsio import file_lock\n"
        "with file_lock(Path(sys.argv[1])):\n"
        "    print(os.getpid(), flush=True); os.kill(os.getpid(), 9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", holder, str(path)], env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == -signal.SIGKILL
    pid = proc.stdout.strip()
    lock = path.with_name("mcp.json.lock")
    assert lock.is_dir()
    started = time.monotonic()
    add = [*LEMON, "mcp", "add", "git", "--stdio", "uvx", "--env", f"TOKEN={SECRET}"]
    result = subprocess.run(add, cwd=tmp_path / "project", env=env, capture_output=True,
                            text=True, timeout=60, check=False)  # fmt: skip
    assert time.monotonic() - started < 8  # reported at once, not after the 10 s wait
    assert result.returncode == 1
    assert f"stale lock from process {pid}" in result.stderr
    assert f"remove the directory {lock}" in result.stderr
    assert not path.exists()
    assert_no_secrets(result.stdout, result.stderr, secrets=(SECRET,))
    for child in lock.iterdir():
        child.unlink()
    lock.rmdir()
    result = subprocess.run(add, cwd=tmp_path / "project", env=env, capture_output=True,
                            text=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0 and check_file(path) == ["git"]
    assert_no_secrets(result.stdout, result.stderr, secrets=(SECRET,))
