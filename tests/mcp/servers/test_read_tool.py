"""``read_skill`` on ``lemon skill serve`` (issue 18 §4): each view, its errors as tool errors,
the first-load audit withholding a blocked hand-placed skill in every view, and the prompt
naming exactly the tools the server lists. Through the SDK's real client against the real
server processes over stdio."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import write_skill
from tests.mcp.servers.lazy_fixtures import skill
from tests.mcp.servers.stdio import BIN, connect

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

BLOCKING = Path(__file__).parents[2] / "fixtures" / "audit_corpus" / "malicious" / \
    "code-curl-pipe-bash"
BLOCKED = "code-curl-pipe-bash"
BODY = "# Deploy\n\nIntro.\n\n## Rollback\n\nRun \u202erollback now.\n\n## Other\n\nMore.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    # the user's own global folder: served without a first-load audit
    folder = skill(Path(os.environ["HOME"]) / ".agents" / "skills", "deploy",
                   description="Deploy the service.", body=BODY)
    (folder / "references").mkdir()
    (folder / "references" / "steps.md").write_text("step \u200bone\n", encoding="utf-8")
    return project


def _serve(project: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    return connect("lemon", "skill", "serve", "--cwd", str(project), *extra, env=env)


@pytest.mark.slow
def test_read_skill_is_listed_with_a_schema_and_read_only_annotations(project: Path) -> None:
    async def body() -> None:
        async with _serve(project) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert list(tools) == ["find_skills", "load_skill", "read_skill", "skill_manage"]
            read = tools["read_skill"]
            assert read.input_schema["required"] == ["key"]
            assert read.input_schema["properties"]["view"]["enum"] == [
                "full", "summary", "section", "file"]
            assert {"section", "path", "include_status", "include_manifest",
                    "max_chars"} <= set(read.input_schema["properties"])
            hints = read.annotations
            assert (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint,
                    hints.open_world_hint) == (True, False, True, False)
            assert "read_skill" in (client.instructions or "")

    anyio.run(body)


@pytest.mark.slow
def test_read_skill_serves_each_view_defanged(project: Path) -> None:
    async def body() -> None:
        async with _serve(project) as client:
            full = await client.call_tool("read_skill", {"key": "deploy"})
            data = full.structured_content
            assert not full.is_error and data["view"] == "full"
            assert "## Rollback" in data["content"] and "\u202e" not in data["content"]
            assert "Run \\u202erollback" in data["content"]
            assert data["content"].splitlines()[-1].startswith("[lemon: 1 invisible")
            assert data["files"] == ["references/steps.md"] and data["key"] == "deploy"
            assert json.loads(full.content[0].text) == data
            assert full.meta["size_bytes"] == data["size_bytes"]

            summary = (await client.call_tool("read_skill", {"key": "deploy",
                                                             "view": "summary"}))
            text = summary.structured_content["content"]
            assert "Deploy the service." in text and "Rollback" in text
            assert "references/steps.md" in text and "Intro." not in text

            section = await client.call_tool("read_skill", {
                "key": "deploy", "view": "section", "section": "rollback",
                "include_status": True})
            got = section.structured_content
            assert got["view"] == "section" and got["section"] == "rollback"
            assert "rollback now" in got["content"] and "More." not in got["content"]
            assert got["status"]["state"] == "active"

            file = await client.call_tool("read_skill", {"key": "deploy", "view": "file",
                                                         "path": "references/steps.md"})
            got = file.structured_content
            assert got["view"] == "file" and got["path"] == "references/steps.md"
            assert got["content"].startswith("step \\u200bone")

            cut = await client.call_tool("read_skill", {"key": "deploy", "max_chars": 12,
                                                        "include_manifest": True})
            assert cut.structured_content["truncated"] is True
            assert cut.structured_content["manifest"]["name"] == "deploy"

    anyio.run(body)


@pytest.mark.slow
def test_read_skill_errors_are_tool_errors(project: Path) -> None:
    outside = project.parent / "secret.txt"
    outside.write_text("secret\n", encoding="utf-8")
    calls = [
        ({"key": "deplo"}, "deploy"),  # a close name
        ({}, "key is required"),
        ({"key": "deploy", "view": "outline"}, "unknown view"),
        ({"key": "deploy", "view": "section"}, "needs a section"),
        ({"key": "deploy", "view": "section", "section": "nowhere"}, "nowhere"),
        ({"key": "deploy", "view": "file", "path": "missing.md"}, "no file"),
        ({"key": "deploy", "view": "file", "path": "../../../../secret.txt"}, "outside"),
        ({"key": "deploy", "file": "x"}, "unknown argument 'file'"),
        ({"key": "deploy", "max_chars": -1}, "max_chars"),
    ]

    async def body() -> None:
        async with _serve(project) as client:
            for arguments, said in calls:
                result = await client.call_tool("read_skill", arguments)
                text = result.content[0].text
                assert result.is_error, arguments
                assert said in text, (arguments, text)
                assert "secret\n" not in text

    anyio.run(body)


@pytest.mark.slow
def test_a_blocked_hand_placed_skill_is_withheld_by_read_skill_in_every_view(
        tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    local = project / ".agents" / "skills"
    local.mkdir(parents=True)
    shutil.copytree(BLOCKING, local / BLOCKED)
    (local / BLOCKED / "expected.json").unlink()
    write_skill(local, "fine", description="A harmless helper for notes.", body="# Fine\n")
    env = {"LEMON_CACHE_DIR": os.environ["LEMON_CACHE_DIR"]}
    views = [{}, {"view": "summary"}, {"view": "section", "section": "setup"},
             {"view": "file", "path": "SKILL.md"}]

    async def body() -> None:
        async with _serve(project, env=env) as client:
            for view in views:
                withheld = await client.call_tool("read_skill", {"key": BLOCKED, **view})
                text = withheld.content[0].text
                assert withheld.is_error, view
                assert "\n" not in text and "code.pipe-to-shell" in text
                assert "attacker" not in text and withheld.structured_content is None
            found = await client.call_tool("find_skills", {})
            assert BLOCKED not in [s["name"] for s in found.structured_content["skills"]]
            fine = await client.call_tool("read_skill", {"key": "fine", "view": "summary"})
            assert not fine.is_error and "harmless" in fine.structured_content["content"]

    anyio.run(body)


# -- the prompt names the tools the server has ------------------------------------------------

_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_.-]*)\(")


def _prompt(project: Path, *args: str) -> str:
    done = subprocess.run([str(BIN / "lemon"), "skill", "prompt", "--cwd", str(project), *args],
                          capture_output=True, text=True, timeout=120, check=True,
                          env={**os.environ})
    return done.stdout


def _named_tools(prompt: str) -> set[str]:
    """Every tool the prompt's header (its second line) tells the model to call, and the
    tool the <more> line points at."""
    lines = prompt.splitlines()
    assert lines[0] == "<available_skills>"
    named = set(_CALL.findall(lines[1]))
    named |= set(re.findall(r"find them with ([A-Za-z0-9_.-]+)", prompt))
    return named


async def _listed(command: str, *args: str) -> set[str]:
    async with connect(command, *args) as client:
        return {t.name for t in (await client.list_tools()).tools}


@pytest.mark.slow
def test_the_default_prompt_names_exactly_lemon_skill_serves_tools(project: Path) -> None:
    served = anyio.run(_listed, "lemon", "skill", "serve", "--cwd", str(project))
    prompt = _prompt(project)
    assert _named_tools(prompt) == served == {"find_skills", "load_skill", "read_skill",
                                              "skill_manage"}
    assert "find_relevant" not in prompt


@pytest.mark.slow
def test_the_lazy_prompt_names_exactly_lazy_skills_mcps_tools(project: Path,
                                                               tmp_path: Path) -> None:
    root = tmp_path / "lazy"
    skill(root, "deploy", description="Deploy the service.", body=BODY)
    served = anyio.run(_listed, "lazy-skills-mcp", "--skills-dir", str(root))
    prompt = _prompt(project, "--tools", "lazy")
    assert _named_tools(prompt) == served == {"find_skills", "load_skill"}
    renamed = _prompt(project, "--tools", "lazy", "--tool-names",
                      "find=search_skills,load=open_skill")
    assert _named_tools(renamed) == {"search_skills", "open_skill"}

