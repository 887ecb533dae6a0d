"""benchmarks/hostile.py runs end to end and reports each run (behaviour only, never time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
def test_hostile_script_measures_and_compares(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEMON_")}
    env["TMPDIR"] = str(tmp_path)
    out = tmp_path / "rows.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "hostile.py"), "--attack", "none", "--attack",
         "project_settings_fifo", "--command", "skill list", "--command", "mcp list --all",
         "--timeout", "30", "--out", str(out)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(out.read_text())
    assert [(r["attack"], r["command"]) for r in rows] == [
        ("none", "skill list"), ("none", "mcp list --all"),
        ("project_settings_fifo", "skill list"), ("project_settings_fifo", "mcp list --all")]
    assert all(r["status"] != "timeout" or r["wall_s"] >= 30 for r in rows)
    assert rows[0]["status"] == "exit 0" and rows[0]["peak_mb"] > 0
    assert not list(tmp_path.glob("lemon-hostile-*")), "the temporary folder is removed"
    table = subprocess.run(
        [sys.executable, str(BENCHMARKS / "hostile.py"), "--compare", str(out), str(out)],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert table.returncode == 0, table.stderr
    assert "| none | " in table.stdout and "| project_settings_fifo | " in table.stdout
    full = subprocess.run(
        [sys.executable, str(BENCHMARKS / "hostile.py"), "--compare", str(out), str(out),
         "--rows"], capture_output=True, text=True, timeout=60, check=False,
    )
    assert "| none | skill list |" in full.stdout
