"""benchmarks/bench_defang.py runs on a small folder and prints its figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_defang.py"


def test_it_prints_the_figures(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Clean\ntext\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("hidden \u202e here\n", encoding="utf-8")
    out = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), "--repeat", "1"],
                         capture_output=True, text=True, check=True).stdout
    assert "defang: 2 texts" in out and "1 changed" in out and "one regex scan" in out
