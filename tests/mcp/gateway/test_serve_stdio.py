"""``lemon mcp serve`` end to end: the gateway as a subprocess, driven by the SDK's real client,
in front of real stdio backend servers started by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.mcp.gateway.support import gateway, lemon_entry, stderr_of
from tests.mcp.runtime.support import SECRET, methods, stdio_entry, write_project

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

CLOSED_URL = "http://127.0.0.1:9/mcp"  # discard port: nothing listens
MODERN = "2026-07-28"  # what the SDK client's default mode="auto" negotiates with lemon


def _project(tmp_path: Path, *servers: dict[str, Any]) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    write_project(project, *servers)
    return project


def _by_raw(tools: list[Any], server: str, raw: str) -> Any:
    # the gateway's names are the host's: mcp_<server>_<tool>_<16 hex>
    return next(t for t in tools if t.name.startswith(f"mcp_{server}_{raw}_"))


def _texts(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_list_and_calls_through_the_gateway(tmp_path: Path, mode: str) -> None:
    log = tmp_path / "alpha.log"
    project = _project(
        tmp_path,
        stdio_entry("alpha", "full", log, block_tools=["hang", "crash"]),
        stdio_entry("beta", "tools-only", tmp_path / "beta.log"),
        {"name": "remote", "type": "http", "url": CLOSED_URL,
         "headers": {"Authorization": f"Bearer {SECRET}"}, "ready_timeout_ms": 5000})

    async def body() -> None:
        async with gateway(project, tmp_path, mode=mode) as client:
            assert (client.session.protocol_version == MODERN) is (mode == "auto")
            caps = client.server_capabilities
            assert caps.tools is not None and caps.tools.list_changed is True
            tools = (await client.list_tools()).tools
            names = [t.name for t in tools]
            assert len(set(names)) == len(names)
            assert all(n.startswith("mcp_") and len(n) <= 64 for n in names)
            assert {n.split("_")[1] for n in names} == {"alpha", "beta"}
            read = _by_raw(tools, "alpha", "read_file")
            assert read.description == "Read a file (pretend)."
            assert read.input_schema["properties"]["path"]["type"] == "string"
            assert any(n.startswith("mcp_alpha_resources_list_") for n in names)  # utilities
            assert not any("_hang_" in n for n in names)  # filters apply

            result = await client.call_tool(read.name, {"path": "README.md"})
            assert not result.is_error and _texts(result) == "full:README.md"
            only = await client.call_tool(_by_raw(tools, "beta", "read_file").name,
                                          {"path": "x"})
            assert _texts(only) == "only:x"
            listed = await client.call_tool(_by_raw(tools, "alpha", "resources_list").name, {})
            uris = [r["uri"] for r in listed.structured_content["resources"]]
            assert uris == ["note://one", "note://two"]
            assert json.loads(_texts(listed)) == listed.structured_content

            unknown = await client.call_tool("mcp_nothing_here_0123456789abcdef", {})
            assert unknown.is_error and "list the tools again" in _texts(unknown)
            everything = json.dumps([t.model_dump(mode="json") for t in tools]) + \
                _texts(result) + _texts(unknown)
            assert SECRET not in everything and CLOSED_URL not in everything

    anyio.run(body)
    assert "tools/call" in methods(log)
    err = stderr_of(tmp_path)
    assert "remote" in err  # the down server is named on stderr, with a fixed reason
    assert SECRET not in err and CLOSED_URL not in err


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_backends_list_changed_reaches_the_client(tmp_path: Path, mode: str) -> None:
    # legacy: notifications/tools/list_changed; auto (2026-07-28): an event on the
    # subscriptions/listen stream the client opened (the SDK tees it to the message handler)
    project = _project(tmp_path, stdio_entry("alpha", "full", tmp_path / "a.log"))
    changed = anyio.Event()
    notices: list[str] = []
    events: list[str] = []

    async def on_message(message: Any) -> None:
        if type(message).__name__ == "ToolListChangedNotification":
            notices.append("tools")
            changed.set()

    async def listen(client: Any, subscribed: Any) -> None:
        async with client.listen(tools_list_changed=True) as subscription:
            subscribed.set()
            async for event in subscription:
                events.append(type(event).__name__)

    async def body() -> None:
        async with gateway(project, tmp_path, mode=mode, message_handler=on_message) as client, \
                anyio.create_task_group() as listening:
            assert client.server_capabilities.tools.list_changed is True
            if mode == "auto":
                assert client.session.protocol_version == MODERN
                subscribed = anyio.Event()
                listening.start_soon(listen, client, subscribed)
                with anyio.fail_after(60):
                    await subscribed.wait()
            tools = (await client.list_tools()).tools
            assert not any(t.name.startswith("mcp_alpha_grown_") for t in tools)
            grew = await client.call_tool(_by_raw(tools, "alpha", "grow").name, {})
            assert _texts(grew) == "grew"
            with anyio.fail_after(60):
                await changed.wait()
            again = (await client.list_tools()).tools
            assert any(t.name.startswith("mcp_alpha_grown_") for t in again)
            await anyio.sleep(1)
            listening.cancel_scope.cancel()

    anyio.run(body)
    assert notices == ["tools"]
    assert events == ([] if mode == "legacy" else ["ToolsListChanged"])


def _approval_project(tmp_path: Path) -> tuple[Path, Path]:
    marker = tmp_path / "marker"
    return _project(tmp_path, stdio_entry("alpha", "full", tmp_path / "a.log", marker,
                                          tool_approvals={"touch": "always"})), marker


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("answer", ["accept", "decline", "cancel", "no"])
def test_approval_through_elicitation(tmp_path: Path, answer: str, mode: str) -> None:
    # legacy: elicitation/create during the call; auto (2026-07-28): an InputRequiredResult
    # round whose form the SDK's client hands to the same callback, then retries
    import mcp_types as types

    project, marker = _approval_project(tmp_path)
    asked: list[Any] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params)
        assert not marker.exists()  # nothing is called before the answer
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        if answer == "no":
            return types.ElicitResult(action="accept", content={"approve": False})
        return types.ElicitResult(action=answer)

    async def body() -> Any:
        async with gateway(project, tmp_path, mode=mode, elicitation_callback=elicit) as client:
            assert (client.session.protocol_version == MODERN) is (mode == "auto")
            tools = (await client.list_tools()).tools
            read = await client.call_tool(_by_raw(tools, "alpha", "read_file").name,
                                          {"path": "a"})
            assert not asked and not read.is_error  # no approval needed: nobody is asked
            return await client.call_tool(_by_raw(tools, "alpha", "touch").name, {})

    result = anyio.run(body)
    assert len(asked) == 1
    text = asked[0].message
    assert "touch" in text and '"alpha"' in text and SECRET not in text
    assert asked[0].requested_schema["properties"]["approve"]["type"] == "boolean"
    if answer == "accept":
        assert not result.is_error and _texts(result) == "touched"
        assert marker.read_text() == "called\n"
    else:
        assert result.is_error and "not approved" in _texts(result)
        assert not marker.exists()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_without_elicitation_the_call_is_refused_with_how_to_allow_it(
        tmp_path: Path, mode: str) -> None:
    project, marker = _approval_project(tmp_path)

    async def body() -> Any:
        async with gateway(project, tmp_path, mode=mode) as client:
            tools = (await client.list_tools()).tools
            return await client.call_tool(_by_raw(tools, "alpha", "touch").name, {})

    result = anyio.run(body)
    text = _texts(result)
    assert result.is_error and not marker.exists()
    assert '"tool_approvals": {"touch": "never"}' in text
    assert str(project / ".lemon" / "mcp.json") in text and SECRET not in text


@pytest.mark.slow
def test_skills_tools_beside_the_gateways(tmp_path: Path) -> None:
    project = _project(tmp_path, stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    folder = project / ".lemon" / "skill" / "nix-flakes"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: nix-flakes\ndescription: Write Nix flakes.\n"
                                     "---\n# Nix flakes\n", encoding="utf-8")

    async def body() -> None:
        async with gateway(project, tmp_path, "--skills") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert {"find_skills", "load_skill"} <= set(tools)
            assert any(n.startswith("mcp_beta_read_file_") for n in tools)
            assert "nix-flakes" in tools["find_skills"].description
            found = await client.call_tool("find_skills", {"query": "nix flake"})
            assert found.structured_content["skills"][0]["name"] == "nix-flakes"
            loaded = await client.call_tool("load_skill", {"name": "nix-flakes"})
            assert "# Nix flakes" in loaded.structured_content["content"]
            # read_skill is served too, by the same handlers as 'lemon skill serve' (issue 18 §4)
            assert tools["read_skill"].annotations.read_only_hint is True
            summary = await client.call_tool("read_skill", {"key": "nix-flakes",
                                                            "view": "summary"})
            assert not summary.is_error and "Nix flakes" in summary.structured_content["content"]

    anyio.run(body)


def test_without_skills_flag_there_are_no_skill_tools(tmp_path: Path) -> None:
    project = _project(tmp_path, stdio_entry("beta", "tools-only", tmp_path / "b.log"))

    async def body() -> None:
        async with gateway(project, tmp_path) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "find_skills" not in names and len(names) == 1

    anyio.run(body)


def test_an_imported_entry_running_the_gateway_is_skipped(tmp_path: Path) -> None:
    log = tmp_path / "beta.log"
    project = _project(tmp_path, stdio_entry("beta", "tools-only", log), lemon_entry())
    cursor = project / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text(json.dumps({"mcpServers": {"lemon-gw": {
        "command": "lemon", "args": ["mcp", "serve", "--skills"]}}}), encoding="utf-8")

    async def body() -> list[str]:
        async with gateway(project, tmp_path) as client:
            return [t.name for t in (await client.list_tools()).tools]

    names = anyio.run(body)
    assert len(names) == 1 and names[0].startswith("mcp_beta_read_file_")
    err = stderr_of(tmp_path)
    assert '"lemon"' in err and '"lemon-gw"' in err
    assert err.count("a gateway never serves itself") == 2
