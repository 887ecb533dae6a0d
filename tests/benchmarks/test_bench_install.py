"""benchmarks/bench_install.py runs and prints its figures side by side (behaviour, never time)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_install.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_install", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert _load().main(["--repeat", "1", "--files", "3", "--history", "2"]) == 0
    out = capsys.readouterr().out
    for label in ("lemon skill install (CLI)", "skills.install() in-process",
                  "source_kit.fetch_tree", "floor: python -c pass",
                  "floor: import lemon_core.cli", "cpu"):
        assert label in out
    if shutil.which("git"):
        assert "git clone --depth 1" in out and "x clone" in out and "target:" in out
    else:
        assert "skipped, no git binary" in out


def test_without_git_the_comparison_is_skipped(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    module = _load()
    monkeypatch.setattr(module.shutil, "which", lambda name: None)
    assert module.main(["--repeat", "1", "--files", "1", "--history", "0"]) == 0
    assert "skipped, no git binary on PATH" in capsys.readouterr().out


def test_phases_show_where_the_cli_install_goes(capsys: pytest.CaptureFixture[str]) -> None:
    assert _load().main(["--repeat", "1", "--files", "1", "--history", "0", "--phases"]) == 0
    out = capsys.readouterr().out
    for label in ("where the CLI install's CPU goes", "import the install library", "fetch",
                  "audit", "lockfile record", "interpreter start-up and exit",
                  "= the audit (import auditors + audit)"):
        assert label in out
