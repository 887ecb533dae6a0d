"""``lazy-skills-mcp`` driven through the SDK's real client over stdio."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import anyio
import pytest

from tests.mcp.servers.lazy_fixtures import skill
from tests.mcp.servers.stdio import BIN, connect, text_of

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    nix = skill(root, "nix-flakes", description="Write and debug Nix flakes, inputs, and "
                "lockfiles.", body="# Nix flakes\n")
    (nix / "references").mkdir()
    (nix / "references" / "inputs.md").write_text("inputs\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    os.symlink(tmp_path / "secret.txt", nix / "outward.txt")
    skill(root / "development" / "python", "python-testing",
          frontmatter="name: python-testing\ndescription: |\n  Run pytest suites.\n  Also fixtures.\n",
          body="Large.\n" * 5000)
    return root


def _run(func, *args):
    return anyio.run(func, *args)


@pytest.mark.slow
def test_tools_find_and_load(source: Path) -> None:
    async def body() -> None:
        async with connect("lazy-skills-mcp", "--skills-dir", str(source)) as client:
            caps = client.server_capabilities
            assert "io.modelcontextprotocol/skills" in (caps.experimental or {})
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert sorted(tools) == ["find_skills", "load_skill"]
            assert "nix-flakes, python-testing" in tools["find_skills"].description
            assert tools["load_skill"].input_schema["required"] == ["name"]

            found = await client.call_tool("find_skills", {"query": "flake lockfile"})
            assert found.structured_content == {"skills": [{
                "name": "nix-flakes",
                "description": "Write and debug Nix flakes, inputs, and lockfiles."}]}
            assert json.loads(text_of(found)) == found.structured_content
            everything = await client.call_tool("find_skills", {})
            assert [s["name"] for s in everything.structured_content["skills"]] == [
                "nix-flakes", "python-testing"]

            loaded = await client.call_tool("load_skill", {"name": "nix-flakes"})
            data = loaded.structured_content
            assert sorted(data) == ["content", "directory", "files"]
            assert data["content"].startswith("---\nname: nix-flakes\n")
            assert data["directory"] == str(source / "nix-flakes")
            assert data["files"] == ["references/inputs.md"]  # the outward link left out
            assert loaded.meta == {"size_bytes": len(data["content"].encode())}

            big = await client.call_tool("load_skill", {"name": "python-testing"})
            size = len(big.structured_content["content"].encode())
            assert size > 24 * 1024 and len(big.structured_content["content"]) > 24_000
            assert big.meta == {"size_bytes": size}
            assert big.content[1].text == f"This SKILL.md is {size} bytes, returned whole."

            unknown = await client.call_tool("load_skill", {"name": "nix-flake"})
            assert unknown.is_error and "nix-flakes" in text_of(unknown)
            missing = await client.call_tool("load_skill", {})
            assert missing.is_error and "name is required" in text_of(missing)

    _run(body)


@pytest.mark.slow
def test_resources_per_sep_2640(source: Path) -> None:
    from mcp.shared.exceptions import MCPError

    async def body() -> None:
        async with connect("lazy-skills-mcp", "--skills-dir", str(source)) as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris == ["skill://index.json", "skill://nix-flakes/SKILL.md",
                            "skill://python-testing/SKILL.md"]
            index = json.loads((await client.read_resource("skill://index.json")).contents[0].text)
            assert index["skills"][0] == {
                "name": "nix-flakes", "uri": "skill://nix-flakes/SKILL.md",
                "description": "Write and debug Nix flakes, inputs, and lockfiles."}
            md = await client.read_resource("skill://nix-flakes/SKILL.md")
            assert md.contents[0].text.startswith("---\nname: nix-flakes")
            ref = await client.read_resource("skill://nix-flakes/references/inputs.md")
            assert ref.contents[0].text == "inputs\n"
            for bad in ("skill://nix-flakes/outward.txt", "skill://nix-flakes/../../secret.txt",
                        "skill://nope/SKILL.md"):
                with pytest.raises(MCPError):
                    await client.read_resource(bad)

    _run(body)


@pytest.mark.slow
def test_changes_seen_at_the_next_call_without_restart(source: Path) -> None:
    async def body() -> None:
        async with connect("lazy-skills-mcp", "--skills-dir", str(source)) as client:
            before = await client.call_tool("find_skills", {"query": "terraform"})
            assert before.structured_content == {"skills": []}
            skill(source / "infra", "terraform-plan", description="Plan terraform changes.")
            after = await client.call_tool("find_skills", {"query": "terraform"})
            assert [s["name"] for s in after.structured_content["skills"]] == ["terraform-plan"]
            skill(source, "nix-flakes", description="Now about home-manager.", body="# New\n")
            edited = await client.call_tool("find_skills", {"query": "home-manager"})
            assert [s["name"] for s in edited.structured_content["skills"]] == ["nix-flakes"]
            loaded = await client.call_tool("load_skill", {"name": "nix-flakes"})
            assert "# New" in loaded.structured_content["content"]
            # the tool description is fixed at startup
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "terraform-plan" not in tools["find_skills"].description

    _run(body)


@pytest.mark.slow
def test_warnings_go_to_stderr_only(source: Path) -> None:
    skill(source, "mismatch", name="something-else")

    async def body(errlog) -> None:
        async with connect("lazy-skills-mcp", "--skills-dir", str(source), errlog=errlog) as c:
            assert (await c.call_tool("find_skills", {"query": "mismatch"})).structured_content \
                == {"skills": []}

    with tempfile.TemporaryFile("w+") as errlog:
        anyio.run(body, errlog)
        errlog.seek(0)
        err = errlog.read()
    assert "lazy-skills-mcp: warning: skill left out:" in err and "something-else" in err


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    return subprocess.run([str(BIN / "lazy-skills-mcp"), *args], capture_output=True, check=False,
                          text=True, env=full, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_exit_1_naming_the_missing_source(tmp_path: Path, source: Path) -> None:
    missing = tmp_path / "nope"
    done = _cli("--skills-dir", str(source), "--skills-dir", str(missing))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip() == f"lazy-skills-mcp: skills source not found: {missing}"


@pytest.mark.slow
def test_exit_1_when_nothing_is_valid_or_everything_is_skipped(tmp_path: Path,
                                                               source: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = _cli("--skills-dir", str(empty))
    assert done.returncode == 1 and str(empty) in done.stderr and done.stdout == ""
    installed = tmp_path / "installed"
    skill(installed, "nix-flakes")
    skill(installed, "python-testing")
    done = _cli("--skills-dir", str(source), "--skip-installed-in", str(installed))
    assert done.returncode == 1 and "skip folder" in done.stderr


def test_print_skills_dir_and_version(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _cli("--print-skills-dir", HOME=str(home), XDG_DATA_HOME="",
                LAZY_SKILLS_MCP_SKILLS_DIR=f"~/a{os.pathsep}/b")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [f"{home}/a", "/b"]
    done = _cli("--print-skills-dir", HOME=str(home), XDG_DATA_HOME="",
                LAZY_SKILLS_MCP_SKILLS_DIR="")
    assert done.stdout.splitlines() == [f"{home}/.local/share/lazy-skills-mcp/skills"]
    version = _cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("lazy-skills-mcp ")


def test_without_the_sdk_it_says_how_to_install_it(source: Path, monkeypatch, capsys) -> None:
    import sys

    from lemon_core.mcp.servers.lazy_cli import main

    monkeypatch.setitem(sys.modules, "mcp", None)
    assert main(["--skills-dir", str(source)], env={"HOME": str(source)}) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "pip install 'lemon-core[mcp]'" in captured.err
