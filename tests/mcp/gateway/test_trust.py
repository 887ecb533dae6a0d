"""``lemon mcp serve`` in a project whose servers the user has not trusted: their tools are not
offered, the agent is told what the user must run, and the person (never the agent) can trust
them through elicitation. The gateway is a subprocess driven by the SDK's real client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from lemon_core.mcp.gateway.trust import TOOL
from tests.mcp.gateway.support import gateway, stderr_of
from tests.mcp.runtime.support import SECRET, stdio_entry, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


def _untrusted_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose own ``.mcp.json`` names a real test server (untrusted) beside a trusted
    lemon entry; returns the project and the untrusted server's log (it exists once started)."""
    project = tmp_path / "project"
    project.mkdir()
    write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    log = tmp_path / "planted.log"
    entry = stdio_entry("planted", "tools-only", log)
    entry.pop("name")
    entry.pop("type")
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"planted": entry}}))
    return project, log


def _texts(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_untrusted_tools_are_not_offered_and_the_agent_is_told_what_to_run(
        tmp_path: Path, mode: str) -> None:
    project, log = _untrusted_project(tmp_path)

    async def body() -> tuple[list[Any], Any]:
        async with gateway(project, tmp_path, mode=mode) as client:  # no elicitation
            tools = (await client.list_tools()).tools
            return tools, await client.call_tool(TOOL, {})

    tools, result = anyio.run(body)
    names = [t.name for t in tools]
    assert not [n for n in names if n.startswith("mcp_planted_")] and not log.exists()
    assert [n for n in names if n.startswith("mcp_beta_")]  # trusted: served
    told = next(t for t in tools if t.name == TOOL).description
    assert '"planted"' in told and f"lemon mcp trust --cwd {project}" in told
    assert result.is_error and f"lemon mcp trust --cwd {project}" in _texts(result)
    assert not log.exists()
    err = stderr_of(tmp_path)
    assert "not trusted, not started" in err and SECRET not in err


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_elicitation_asks_the_person_and_a_yes_starts_them(tmp_path: Path, mode: str,
                                                           answer: str) -> None:
    import mcp_types as types

    project, log = _untrusted_project(tmp_path)
    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params)
        assert not log.exists()  # nothing starts before the answer
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action=answer)

    async def body() -> tuple[Any, list[str]]:
        async with gateway(project, tmp_path, mode=mode, elicitation_callback=elicit) as client:
            await client.list_tools()
            result = await client.call_tool(TOOL, {})
            return result, [t.name for t in (await client.list_tools()).tools]

    result, after = anyio.run(body)
    assert len(asked) == 1
    shown = asked[0].message
    assert '"planted"' in shown and "tools-only" in shown  # the launch line
    assert "API_KEY=<hidden>" in shown and SECRET not in shown
    planted = [n for n in after if n.startswith("mcp_planted_")]
    if answer == "accept":
        assert not result.is_error and planted and log.exists() and TOOL not in after
        store = json.loads((tmp_path / "agent" / "mcp-trust.json").read_text())
        assert "planted" in store["projects"][str(project.resolve())]["servers"]
    else:
        assert result.is_error and "did not trust" in _texts(result)
        assert not planted and not log.exists() and TOOL in after
