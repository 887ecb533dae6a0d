"""benchmarks/swap_race.py runs and reports no outside read (behaviour, never time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "swap_race.py"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX links")
def test_the_race_script_prints_every_pair_and_no_outside_read() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--reads", "40"], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and lines[-1] == "outside reads in all: 0"
    assert all("outside=0" in line for line in lines[:4])
