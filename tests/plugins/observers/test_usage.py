"""The ``observers.usage`` plugin counts the loads of ``lemon skill serve`` (the SDK's real
client over stdio, several servers at once) in the scope's sidecar."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.helpers import write_skill
from tests.mcp.servers.stdio import connect

pytest.importorskip("mcp")


def test_loads_through_two_servers_are_all_counted(tmp_path: Path) -> None:
    home = Path(__import__("os").environ["HOME"])
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".agents" / "skills", "local-notes", body="# Local\n")
    write_skill(home / ".agents" / "skills", "global-notes", body="# Global\n")

    async def agent(calls: int) -> None:
        async with connect("lemon", "skill", "serve", "--cwd", str(project)) as client:
            for _ in range(calls):
                await client.call_tool("load_skill", {"name": "local-notes"})
                await client.call_tool("read_skill", {"key": "local-notes",
                                                      "view": "summary"})
                await client.call_tool("read_skill", {"key": "global-notes"})
            missing = await client.call_tool("read_skill", {"key": "no-such-skill"})
            assert missing.is_error

    async def body() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(agent, 4)
            group.start_soon(agent, 4)

    anyio.run(body)
    project_usage = json.loads((project / ".lemon" / "skills.usage.json").read_text())
    assert project_usage["skills"]["local-notes"]["loads"] == 16
    assert "no-such-skill" not in project_usage["skills"]
    agent_dir = home / ".lemon" / "agent"
    global_usage = json.loads((agent_dir / "skills.usage.json").read_text())
    assert global_usage["skills"]["global-notes"]["loads"] == 8
    # the sidecars sit outside the skill folders
    assert sorted(p.name for p in (project / ".agents" / "skills" / "local-notes").iterdir()) \
        == ["SKILL.md"]


def test_a_persons_read_counts_nothing_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lemon_core.context import LemonContext
    from lemon_core.skills.agent import read_skill
    from tests.helpers import run_cli

    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".agents" / "skills", "local-notes", body="# Local\n")
    code, out, err = run_cli(capsys, "skill", "read", "local-notes", "--cwd", str(project))
    assert code == 0, err
    assert "# Local" in out
    assert not (project / ".lemon").exists()
    read_skill("local-notes", LemonContext.from_environment(project), reader="person")
    assert not (project / ".lemon").exists()
    read_skill("local-notes", LemonContext.from_environment(project))  # an agent's load counts
    usage = json.loads((project / ".lemon" / "skills.usage.json").read_text())
    assert usage["skills"]["local-notes"]["loads"] == 1
