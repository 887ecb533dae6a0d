"""benchmarks/bench_mcp_server.py runs end to end on a tiny corpus and prints every figure."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

pytest.importorskip("mcp")


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("bench_mcp_server",
                                                  BENCHMARKS / "bench_mcp_server.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_mcp_server", module)
    spec.loader.exec_module(module)
    return module


def test_queries_are_deterministic(bench) -> None:
    assert bench.queries(20) == bench.queries(20)
    assert all(1 <= len(q.split()) <= 3 for q in bench.queries(50))


@pytest.mark.slow
def test_runs_on_a_tiny_corpus(bench, tmp_path: Path, capsys) -> None:
    assert bench.main(["--skills", "30", "--corpus", str(tmp_path / "c"), "--queries", "3",
                       "--starts", "1"]) == 0
    out = capsys.readouterr().out
    for measure in bench.MEASURES:
        assert measure in out
    assert "lemon skill serve" in out and "lazy-skills-mcp" in out
