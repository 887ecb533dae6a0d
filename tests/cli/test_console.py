"""The ``lemon`` console script: exit codes and complete output despite its fast exit."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import LEMON, write_skill

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _lemon(*argv: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "LEMON_CACHE_DIR": str(home / "cache")}
    return subprocess.run([*LEMON, *argv], capture_output=True, text=True, env=env,
                          check=False)


def test_large_output_is_complete_and_errors_keep_their_codes(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    for index in range(300):
        write_skill(project / ".agents" / "skills", f"skill-{index:03d}",
                    description="A description long enough to make the output large. " * 4)
    done = _lemon("skill", "list", "--json", "--cwd", str(project), home=tmp_path)
    assert done.returncode == 0 and len(json.loads(done.stdout)["skills"]) == 300
    missing = _lemon("skill", "inspect", "nope", "--cwd", str(project), home=tmp_path)
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("lemon: ") and missing.stderr.count("\n") == 1
    usage = _lemon("skill", "list", "--bogus", home=tmp_path)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_version_help_and_no_command_through_the_console_script(tmp_path: Path) -> None:
    import lemon_core

    for flag in ("--version", "-V"):
        done = _lemon(flag, home=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (
            0, f"lemon {lemon_core.__version__}\n", "")
    done = _lemon("skill", "inspect", "-h", home=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Usage: lemon skill inspect ")
    done = _lemon(home=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and "Commands:" in done.stderr
    done = _lemon("skill", "inspect", "", home=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "KEY" in done.stderr
