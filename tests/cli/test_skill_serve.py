"""``lemon skill serve`` driven through the SDK's real client over stdio."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers import run_cli, write_skill
from tests.mcp.servers.stdio import connect

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(project, home): project skills in .agents/skills, global ones in ~/.agents/skills."""
    home = Path(__import__("os").environ["HOME"])
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    local = project / ".agents" / "skills"
    write_skill(local, "nix-flakes",
                description="Write and debug Nix flakes, inputs, and lockfiles.",
                body="# Nix flakes\n")
    (local / "nix-flakes" / "references").mkdir()
    (local / "nix-flakes" / "references" / "inputs.md").write_text("inputs\n")
    write_skill(local, "shared", description="The project's version of shared.")
    write_skill(local, "secret-helper", "name: secret-helper\ndescription: Hidden helper for "
                "lockfiles.\nhide: true\n")
    write_skill(local, "switched-off", description="Disabled lockfiles helper.")
    glob = home / ".agents" / "skills"
    write_skill(glob, "shared", description="The global version of shared.")
    write_skill(glob, "global-only", description="Only in the home folder.")
    return project, home


def _serve(project: Path):
    return connect("lemon", "skill", "serve", "--cwd", str(project))


def test_tools_over_the_lemon_catalog(workspace, capsys) -> None:
    project, _ = workspace
    assert run_cli(capsys, "skill", "disable", "switched-off", "--local", "--cwd",
                   str(project))[0] == 0

    async def body() -> None:
        async with _serve(project) as client:
            assert "io.modelcontextprotocol/skills" in client.server_capabilities.experimental
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == ["find_skills", "load_skill", "read_skill", "skill_manage"]
            described = tools["find_skills"].description
            assert "global-only, nix-flakes, shared." in described  # hidden, disabled left out

            found = await client.call_tool("find_skills", {"query": "flake lockfile"})
            names = [s["name"] for s in found.structured_content["skills"]]
            assert names[0] == "nix-flakes"
            assert "secret-helper" not in names and "switched-off" not in names
            assert set(found.structured_content["skills"][0]) == {"name", "description"}
            every = await client.call_tool("find_skills", {"query": ""})
            assert [s["name"] for s in every.structured_content["skills"]] == [
                "global-only", "nix-flakes", "shared"]
            shared = [s for s in every.structured_content["skills"] if s["name"] == "shared"]
            assert shared[0]["description"] == "The project's version of shared."

            loaded = await client.call_tool("load_skill", {"name": "nix-flakes"})
            data = loaded.structured_content
            assert sorted(data) == ["content", "directory", "files"]
            assert data["directory"] == str(project / ".agents" / "skills" / "nix-flakes")
            assert data["files"] == ["references/inputs.md"]
            assert "# Nix flakes" in data["content"]
            hidden = await client.call_tool("load_skill", {"name": "secret-helper"})
            assert not hidden.is_error  # hidden: not suggested, still loadable by name
            off = await client.call_tool("load_skill", {"name": "switched-off"})
            assert off.is_error and "disabled" in off.content[0].text
            unknown = await client.call_tool("load_skill", {"name": "nix-flake"})
            assert unknown.is_error and "nix-flakes" in unknown.content[0].text

    anyio.run(body)


def test_resources_and_changes_while_running(workspace) -> None:
    project, _ = workspace
    local = project / ".agents" / "skills"

    async def body() -> None:
        async with _serve(project) as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris[0] == "skill://index.json" and "skill://nix-flakes/SKILL.md" in uris
            index = json.loads((await client.read_resource("skill://index.json")).contents[0]
                               .text)
            assert {"name": "global-only", "description": "Only in the home folder.",
                    "uri": "skill://global-only/SKILL.md"} in index["skills"]
            ref = await client.read_resource("skill://nix-flakes/references/inputs.md")
            assert ref.contents[0].text == "inputs\n"

            write_skill(local, "terraform-plan", description="Plan terraform changes.")
            found = await client.call_tool("find_skills", {"query": "terraform"})
            assert [s["name"] for s in found.structured_content["skills"]] == [
                "terraform-plan"]
            write_skill(local, "nix-flakes", description="Now about home-manager.",
                        body="# Edited\n")
            found = await client.call_tool("find_skills", {"query": "home-manager"})
            assert found.structured_content["skills"][0] == {
                "name": "nix-flakes", "description": "Now about home-manager."}
            loaded = await client.call_tool("load_skill", {"name": "nix-flakes"})
            assert "# Edited" in loaded.structured_content["content"]

    anyio.run(body)


def test_without_the_sdk_it_says_how_to_install_it(workspace, capsys, monkeypatch) -> None:
    project, _ = workspace
    monkeypatch.setitem(sys.modules, "mcp", None)
    code, out, err = run_cli(capsys, "skill", "serve", "--cwd", str(project))
    assert code == 1 and out == ""
    assert "pip install 'lemon-core[mcp]'" in err
