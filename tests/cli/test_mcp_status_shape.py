"""``lemon mcp status --json`` carries the spec's top level (``disabled``, ``servers``,
``cached_tools``, ``cache_ttl_ms``) beside its own keys, and each server's reconnect state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.mcp.runtime.support import SECRET, stdio_entry, write_project

pytest.importorskip("mcp")


def test_status_json_has_the_specs_top_level(capsys, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    monkeypatch.setenv("LEMON_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    code, out, err = run_cli(capsys, "mcp", "status", "--json", "--cwd", str(project))
    assert code == 0 and SECRET not in out + err
    data = json.loads(out)
    assert {"enabled", "servers", "errors", "untrusted"} <= set(data)  # the keys it had
    assert data["disabled"] is False and data["cached_tools"] == 1
    assert data["cache_ttl_ms"] == 300_000
    (server,) = data["servers"]
    assert server["connected"] and server["reconnecting"] is False and server["restarts"] == 0
