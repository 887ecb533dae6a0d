"""Running the real ``lemon`` CLI against a project with hostile state files, bounded."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers import write_skill

#: The CLI run may not take longer or use more address space than this.
TIMEOUT_S = 20
MAX_ADDRESS_SPACE = 2 * 1024**3


#: The child limits its own address space, then runs the console script.
_CHILD = (
    "import resource; "
    f"resource.setrlimit(resource.RLIMIT_AS, ({MAX_ADDRESS_SPACE}, {MAX_ADDRESS_SPACE})); "
    "from lemon_core.cli import console; console()"
)


def project_with_a_skill(tmp_path: Path) -> Path:
    """A repository holding one ordinary project skill, ``ok``, and an empty ``.lemon``."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".lemon").mkdir()
    write_skill(project / ".agents" / "skills", "ok")
    return project


def lemon(cwd: Path, *argv: str, home: str | Path, run_in: Path | None = None,
          **env: str) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds) of ``lemon *argv --cwd cwd`` with ``HOME=home``;
    stdin is a pipe nobody writes to (a ``/dev/stdin`` link must not wait for it)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("LEMON_")}
    environ.update(HOME=str(home), **env)
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, *argv,
         "--cwd", str(cwd)],
        cwd=run_in or cwd, env=environ, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"lemon {' '.join(argv)} did not finish in {TIMEOUT_S} s") from None
    return proc.returncode, out, err, time.monotonic() - started


def assert_listed_with_one_diagnostic(result: tuple[int, str, str, float], path: Path,
                                      code: str) -> str:
    """The listing still shows ``ok`` (exit 0, no traceback) and names ``path`` once, in one
    diagnostic with ``code``; returns that stderr line."""
    status, out, err, _ = result
    assert "Traceback" not in err, err
    assert status == 0, err
    assert "ok" in out.split()
    lines = [line for line in err.splitlines() if str(path) in line]
    assert len(lines) == 1, err
    assert lines[0].count(str(path)) == 1, lines[0]
    assert f"[{code}]" in lines[0], lines[0]
    return lines[0]
