"""Shared fixtures: a fake home, a project, and contexts built on them (helpers that are
plain functions live in ``tests/helpers.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.context import LemonContext


@pytest.fixture(autouse=True)
def _isolated_process_env(tmp_path_factory: pytest.TempPathFactory,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs may read or write the real home or cache."""
    fake = tmp_path_factory.mktemp("process-home")
    monkeypatch.setenv("HOME", str(fake))
    monkeypatch.setenv("LEMON_CACHE_DIR", str(fake / ".cache" / "lemon"))
    for name in list(os.environ):
        if name.startswith(("LEMON_", "CLAUDE_CONFIG_DIR")) and name != "LEMON_CACHE_DIR":
            monkeypatch.delenv(name)
    # The shipped skills are a catalog root by default; tests list only their own skills
    # unless they ask for the built-ins (tests/catalog/test_builtin_root.py).
    monkeypatch.setenv("LEMON_BUILTIN_SKILLS", "0")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository (a ``.git`` folder) outside the home directory."""
    path = tmp_path / "work" / "repo"
    (path / ".git").mkdir(parents=True)
    return path


@pytest.fixture
def make_ctx(home: Path, project: Path, tmp_path: Path) -> Callable[..., LemonContext]:
    def make(cwd: Path | None = None, **env: str) -> LemonContext:
        base = {"HOME": str(home), "PATH": os.environ.get("PATH", ""),
                "LEMON_CACHE_DIR": str(tmp_path / "cache"), "LEMON_BUILTIN_SKILLS": "0"}
        return LemonContext(cwd=cwd or project, home=home, env={**base, **env},
                            platform="linux")

    return make
