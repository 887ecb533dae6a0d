"""benchmarks/bench_fetch_bounds.py runs every row and reports each install's outcome
(behaviour, never time or memory)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_fetch_bounds.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_fetch_bounds", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_every_row_runs_with_small_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    # 70 MiB inside: over the 64 MiB a fetched file may hold, built as a 70 KiB loose object
    assert _load().main(["--outside", "8", "--chunk", "4", "--http-outside", "8",
                         "--http-chunk", "4", "--inside", "70", "--json"]) == 0
    rows = {row["row"]: row for row in json.loads(capsys.readouterr().out)}
    assert set(rows) == {"file-outside", "file-inside", "http-outside", "http-inside",
                         "local-outside", "local-inside"}
    assert rows["file-outside"]["status"] == rows["http-outside"]["status"] == "exit 0"
    assert "over the 64 MiB a fetched file may hold" in rows["file-inside"]["message"]
    assert "inflates past 64 MiB" in rows["http-inside"]["message"]
    assert rows["local-outside"]["status"] == "exit 0"  # 8 MiB: within the skill caps
    assert rows["local-inside"]["status"] == "exit 1"  # a 70 MiB file: over them
    assert all(row["peak_rss_mb"] > 0 for row in rows.values())
