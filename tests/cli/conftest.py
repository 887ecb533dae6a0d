"""Fixtures of the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def cli_project(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with ``HOME`` pointing at the test's own empty home, so a command run
    in process sees only the test's skills (a module may name its own fixture ``project``)."""
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    return repo
