"""benchmarks/bench_search.py runs end to end on tiny corpora and prints every figure."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from tests.helpers import write_skill

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("bench_search", BENCHMARKS / "bench_search.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_search", module)
    spec.loader.exec_module(module)
    return module


def test_the_labelled_queries_are_many_and_well_formed() -> None:
    data = tomllib.loads((BENCHMARKS / "queries.toml").read_text(encoding="utf-8"))
    queries = data["query"]
    assert len(queries) >= 100
    assert all(set(q) == {"q", "skill"} and q["q"].strip() and q["skill"] for q in queries)
    assert len({q["q"] for q in queries}) == len(queries)


def test_plain_bm25_baseline(bench) -> None:
    ranker = bench.PlainBM25([("a", "kafka streams"), ("b", "yaml lint"), ("c", "kafka")])
    assert ranker.search("kafka", 3) == ["c", "a"]
    assert ranker.search("nothing", 3) == []


@pytest.mark.slow
def test_runs_on_tiny_corpora(bench, tmp_path: Path, capsys) -> None:
    real = tmp_path / "real"
    write_skill(real / "acme__repo" / "skills", "pdf-tools", description="Merge PDF files.")
    write_skill(real / "acme__repo" / "skills", "yaml-lint", description="Lint YAML files.")
    write_skill(real / "other__repo", "pdf-tools", description="Another PDF copy.")
    queries = tmp_path / "q.toml"
    queries.write_text('[[query]]\nq = "merge my pdfs"\nskill = "acme__repo/skills/pdf-tools"\n'
                       '[[query]]\nq = "check yaml"\nskill = "acme__repo/skills/yaml-lint"\n')
    code = bench.main(["--skills", "40", "--repeat", "1", "--real", str(real),
                       "--queries", str(queries)])
    out = capsys.readouterr().out
    assert code == 0
    for row in ("find_relevant p50", "cli skill search --json (warm)", "BM25 name+description",
                "BM25 name+description+body", "hit@3"):
        assert row in out
    assert any(line.startswith("lemon (find_relevant") and line.endswith("1.000  1.000")
               for line in out.splitlines())


def test_the_needs_set_is_large_labelled_and_split_by_its_text(bench) -> None:
    queries = bench.load_queries(BENCHMARKS / "queries_needs.toml")
    assert len(queries) >= 300 and len({q for q, _ in queries}) == len(queries)
    assert all(q.strip() and skills and all("/" in s for s in skills) for q, skills in queries)
    dev = bench.load_queries(BENCHMARKS / "queries_needs.toml", "dev")
    report = bench.load_queries(BENCHMARKS / "queries_needs.toml", "report")
    assert len(dev) + len(report) == len(queries) and min(len(dev), len(report)) >= 150
    # the rule is the text's sha256, nothing else: a query's half never moves
    assert bench.split_half("weather forecast for tomorrow") == "dev"
    assert {bench.split_half(q) for q, _ in report} == {"report"}


def test_hit_rates_and_mrr_count_any_of_several_labels(bench) -> None:
    ranked = {"a": ["x", "y", "z"], "b": ["y", "k"], "c": ["q", "r", "s", "t"]}
    labelled = [("a", frozenset({"y", "w"})), ("b", frozenset({"y"})), ("c", frozenset({"t"}))]
    hit1, hit3, mrr, misses = bench.hit_rates(ranked.__getitem__, labelled)
    assert (hit1, hit3) == (1 / 3, 2 / 3)
    assert mrr == (1 / 2 + 1 + 1 / 4) / 3
    assert [m[0] for m in misses] == ["c"]


def test_misses_are_refused_on_the_report_half(bench, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="report half"):
        bench.main(["--no-speed", "--half", "report", "--misses", "--real", str(tmp_path)])
