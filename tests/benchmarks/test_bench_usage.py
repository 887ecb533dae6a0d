"""benchmarks/bench_usage.py runs on a small project and prints both figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_usage.py"


def test_it_prints_the_figures() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--loads", "5", "--skills", "3",
                          "--repeat", "1"], capture_output=True, text=True, check=True).stdout
    assert "sidecar off:" in out and "sidecar on:" in out and "the sidecar costs" in out
