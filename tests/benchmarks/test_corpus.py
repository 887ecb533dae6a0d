"""The benchmark corpus generator and the benchmark script: behaviour only, never time."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def corpus(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    return _load("corpus", monkeypatch)


def test_same_seed_same_bytes(corpus: ModuleType, tmp_path: Path) -> None:
    corpus.generate(tmp_path / "a", 50, seed=7)
    corpus.generate(tmp_path / "b", 50, seed=7)
    corpus.generate(tmp_path / "c", 50, seed=8)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")


@pytest.mark.parametrize("layout", ["flat", "grouped", "mixed"])
def test_layout_roots_and_invalid_skills(corpus: ModuleType, tmp_path: Path,
                                         layout: str) -> None:
    summary = corpus.generate(tmp_path, 50, layout=layout, seed=1)
    depths = set()
    found = 0
    for root in corpus.root_dirs(tmp_path):
        for skill_md in root.rglob("SKILL.md"):
            rel = skill_md.relative_to(root)
            if rel.parts[0].startswith("."):
                continue  # the hidden folder every root carries
            found += 1
            depths.add(len(rel.parts))
    assert found == 50
    assert depths == {"flat": {2}, "grouped": {4}, "mixed": {2, 4}}[layout]
    assert (tmp_path / "project" / ".git").is_dir()
    assert (tmp_path / "project" / ".agents" / "skills").is_dir()
    assert (tmp_path / "home" / ".lemon" / "agent" / "skill").is_dir()
    kinds = {kind for _, kind in summary["invalid"]}
    assert kinds == set(corpus.INVALID_KINDS)
    for rel, kind in summary["invalid"]:
        data = (tmp_path / rel).read_bytes()
        if kind == "unclosed":
            assert data.count(b"\n---\n") == 0
        if kind == "invalid_utf8":
            with pytest.raises(UnicodeDecodeError):
                data.decode("utf-8")
    assert summary["duplicates"], "some keys must be shadowed across roots"
    assert summary["formats"]["toml"] > 0 and summary["formats"]["yaml"] > 0
    assert json.loads((tmp_path / "corpus.json").read_text()) == summary


def test_mtimes_are_aged(corpus: ModuleType, tmp_path: Path) -> None:
    import time

    corpus.generate(tmp_path, 20, seed=2)
    newest = max(os.stat(p).st_mtime for p in [tmp_path, *tmp_path.rglob("*")])
    assert newest < time.time() - 60


@pytest.mark.slow
def test_bench_script_runs_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = _load("bench_discovery", monkeypatch)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEMON_")}
    env.update(HOME=str(tmp_path / "home"), LEMON_CACHE_DIR=str(tmp_path / "cache"),
               TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bench_discovery.py"), "--skills", "50",
         "--repeat", "1"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    for measure in bench.MEASURES:
        assert measure in done.stdout, measure
    assert "cpus" in done.stdout and "Python" in done.stdout
    assert "not measured" not in done.stdout, done.stdout
    assert not list(tmp_path.glob("lemon-bench-*")), "the temporary folder is removed"


def test_phases_script_runs_end_to_end(corpus: ModuleType, tmp_path: Path) -> None:
    corpus.generate(tmp_path / "corpus", 40, seed=1)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEMON_")}
    env.update(HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "phases.py"), "--corpus", str(tmp_path / "corpus"),
         "--repeat", "1"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for phase in ("(a)", "(b)", "(c)", "unseal (HMAC-SHA256 check)", "CacheStore.load"):
        assert phase in done.stdout, phase
