"""``lemon mcp serve`` as a command: its options, --cwd checked, a clean end when the client
closes stdin (nothing but protocol on stdout), a self-entry named on stderr, no credential."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from tests.mcp.gateway.support import gateway, lemon_entry, serve_env
from tests.mcp.runtime.support import SECRET, stdio_entry, write_project
from tests.mcp.servers.stdio import BIN

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")


def _lemon(tmp_path: Path, *argv: str, stdin: bytes = b"",
           **env: str) -> subprocess.CompletedProcess[bytes]:
    environ = {**serve_env(tmp_path), "PATH": os.environ.get("PATH", ""), **env}
    return subprocess.run([str(BIN / "lemon"), *argv], input=stdin, capture_output=True,
                          env=environ, timeout=120, check=False)


def test_help_names_the_options(tmp_path: Path) -> None:
    done = _lemon(tmp_path, "mcp", "serve", "--help")
    assert done.returncode == 0
    assert b"--skills" in done.stdout and b"--cwd" in done.stdout


def test_a_missing_project_is_a_usage_error(tmp_path: Path) -> None:
    done = _lemon(tmp_path, "mcp", "serve", "--cwd", str(tmp_path / "nowhere"))
    assert done.returncode == 2 and b"does not exist" in done.stderr
    assert done.stdout == b""


def test_closing_stdin_ends_it_cleanly_with_nothing_on_stdout(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"),
                  lemon_entry())
    done = _lemon(tmp_path, "mcp", "serve", "--cwd", str(project))
    assert done.returncode == 0 and done.stdout == b""
    assert SECRET.encode() not in done.stderr


def test_disabled_mcp_serves_no_tools_but_the_skills(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    env = serve_env(tmp_path)
    env["LEMON_MCP_DISABLED"] = "1"

    async def body() -> list[str]:
        from mcp import Client, StdioServerParameters

        params = StdioServerParameters(command=str(BIN / "lemon"),
                                       args=["mcp", "serve", "--skills", "--cwd", str(project)],
                                       env=env)
        async with Client(params, mode="legacy", read_timeout_seconds=90) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(body) == ["find_skills", "load_skill", "read_skill"]


def test_a_self_entry_is_named_on_stderr_without_its_command(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    secret_path = str(BIN / "lemon")
    entry = lemon_entry(secret_path)
    entry["env"] = {"TOKEN": SECRET}
    write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"), entry)

    async def body() -> int:
        async with gateway(project, tmp_path) as client:
            return len((await client.list_tools()).tools)

    assert anyio.run(body) == 1
    err = (tmp_path / "serve.err").read_text(encoding="utf-8")
    assert 'MCP server "lemon": skipped: this entry runs' in err
    assert SECRET not in err and json.dumps(secret_path)[1:-1] not in err


def test_an_unusable_lemon_file_is_named_on_stderr_once(tmp_path: Path) -> None:
    """An unusable ``.lemon/mcp.json`` disables the project's servers (fail closed): the client
    sees no tools, and stderr (the client's server log) says why."""
    project = tmp_path / "project"
    project.mkdir()
    lemon_file = write_project(project, stdio_entry("beta", "tools-only", tmp_path / "b.log"))
    lemon_file.write_text('{"servers": [\n<<<<<<< HEAD\n')

    async def body() -> int:
        async with gateway(project, tmp_path) as client:
            first = len((await client.list_tools()).tools)
            await client.list_tools()
            return first

    assert anyio.run(body) == 0
    err = (tmp_path / "serve.err").read_text(encoding="utf-8")
    assert err.count(f"MCP configuration (lemon:project): {lemon_file}: invalid JSON") == 1
    assert "every MCP server is disabled until this file is fixed" in err
