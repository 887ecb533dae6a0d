"""A workspace (project + fake home) and the real, entry-point-loaded importers.

Shared by the importer tests here and in ``tests/mcp`` (their conftests import the fixtures).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.importing import ImportOutcome, import_servers
from lemon_core.plugin_registry import Plugins
from lemon_core.plugins import load_plugins


@attrs.define
class Workspace:
    root: Path
    plugins: Plugins

    @property
    def proj(self) -> Path:
        return self.root / "proj"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def write(self, rel: str, content: str | bytes | dict[str, Any], *, user: bool = False) -> Path:
        path = (self.home if user else self.proj) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, dict):
            content = json.dumps(content)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def ctx(self, cwd: Path | None = None, **env: str) -> LemonContext:
        return LemonContext(cwd=cwd or self.proj, home=self.home, env=env, platform="linux")

    def run(self, cwd: Path | None = None, **env: str) -> ImportOutcome:
        return import_servers(self.ctx(cwd, **env), self.plugins)

    @staticmethod
    def reasons(outcome: ImportOutcome) -> dict[str | None, str]:
        return {entry.name: entry.reason for entry in outcome.skipped}

    def one(self, name: str, **env: str) -> Any:
        outcome = self.run(**env)
        assert outcome.errors == ()
        found = [server for server in outcome.servers if server.name == name]
        assert len(found) == 1, (outcome.servers, outcome.skipped)
        return found[0]


@pytest.fixture(scope="session")
def builtin_plugins(tmp_path_factory: pytest.TempPathFactory) -> Plugins:
    neutral = tmp_path_factory.mktemp("neutral")
    return load_plugins(LemonContext(cwd=neutral, home=neutral, env={}), builtins_only=True)


@pytest.fixture
def ws(tmp_path: Path, builtin_plugins: Plugins) -> Workspace:
    (tmp_path / "proj").mkdir()
    (tmp_path / "home").mkdir()
    return Workspace(tmp_path, builtin_plugins)
