"""cli.process: a ``lemon`` process gives the same output and exit code with its speed-up
(``gc.freeze``) as on the plain path (``LEMON_PLAIN=process``), and ends cleanly when its
reader goes away."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import LEMON, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _run(argv: list[str], env: dict[str, str], plain: bool) -> tuple[int, str, str]:
    env = {**env, "LEMON_PLAIN": "process"} if plain else env
    done = subprocess.run([*LEMON, *argv], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    return done.returncode, done.stdout, done.stderr


def test_the_speed_up_changes_no_output_and_no_exit_code(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    for index in range(40):
        write_skill(project / ".agents" / "skills", f"skill-{index:02d}")
    env = {**os.environ, "HOME": str(tmp_path), "LEMON_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("LEMON_PLAIN", None)
    where = ["--cwd", str(project)]
    for argv in (["--help"], ["--version"], [], ["skill", "list", "--json", *where],
                 ["skill", "list", *where], ["skill", "inspect", "skill-03", *where],
                 ["skill", "inspect", "nope", *where], ["skill", "list", "--bogus"],
                 ["mcp", "list", "--json", *where]):
        fast, plain = _run(argv, env, plain=False), _run(argv, env, plain=True)
        assert fast == plain, argv
        assert "Traceback" not in fast[2], argv
    assert _run(["skill", "inspect", "nope", *where], env, plain=False)[0] == 1
    assert _run(["skill", "list", "--bogus"], env, plain=False)[0] == 2


@pytest.mark.parametrize("plain", [False, True])
def test_a_reader_that_goes_away_ends_the_process_quietly(tmp_path: Path, plain: bool) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    for index in range(300):
        write_skill(project / ".agents" / "skills", f"skill-{index:03d}",
                    description="A description long enough to fill a pipe. " * 6)
    env = {**os.environ, "HOME": str(tmp_path), "LEMON_CACHE_DIR": str(tmp_path / "cache"),
           **({"LEMON_PLAIN": "1"} if plain else {})}
    with subprocess.Popen([*LEMON, "skill", "list", "--json", "--cwd", str(project)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(10) == b'{"skills":'
        proc.stdout.close()  # the reader goes away (``lemon skill list | head``)
        err = proc.stderr.read().decode()
        code = proc.wait(timeout=120)
    assert code in (0, 1) and err == "", err  # 0 when all was written before the close


def test_importing_the_cli_leaves_the_collector_alone() -> None:
    """Only the ``lemon`` process itself (cli.process) touches the collector; an embedder
    importing the CLI finds it as it was."""
    code = ("import gc\nbefore = gc.get_freeze_count()\nimport lemon_core.cli\n"
            "print(gc.isenabled(), gc.get_freeze_count() == before)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True", "True"]
