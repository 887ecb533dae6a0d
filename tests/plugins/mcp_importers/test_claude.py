"""Claude Code: ``.claude/.mcp.json`` else ``.claude/mcp.json``; ``~/.claude.json``
(``projects[<cwd>]`` then top level) else ``~/.claude/mcp.json``; ``CLAUDE_CONFIG_DIR``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.plugins.mcp_importers.workspace import Workspace

OPT_IN = {"LEMON_MCP_EXTERNAL_USER_DISCOVERY": "claude"}


def servers(**entries: dict[str, Any]) -> dict[str, Any]:
    return {"mcpServers": entries}


def names(outcome: Any) -> list[tuple[str, str]]:
    return [(s.name, Path(s.source.file).name) for s in outcome.servers]


# Written from Claude Code's documented .mcp.json / ~/.claude.json shapes.
def state_file(cwd: Path) -> dict[str, Any]:
    return {
        "numStartups": 12,
        "mcpServers": {
            "user-scoped": {"command": "uvx", "args": ["user-srv"]},
            "shared": {"command": "from-top-level"},
        },
        "projects": {
            "/somewhere/else": {"mcpServers": {"other": {"command": "x"}}},
            str(cwd): {
                "mcpServers": {
                    "local-scoped": {
                        "type": "http",
                        "url": "https://example.test/mcp",
                        "headers": {"X-Key": "${KEY:-none}"},
                        "oauth": {"clientId": "c", "callbackPort": 8080},
                        "headersHelper": "print-headers.sh",
                    },
                    "shared": {"command": "from-project"},
                },
                "enabledMcpjsonServers": [],
                "enableAllProjectMcpServers": False,
            },
        },
    }


def test_project_file_entries(ws: Workspace) -> None:
    ws.write(
        ".claude/.mcp.json",
        servers(
            github={
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "gh-mcp"],
                "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"},
            },
            docs={"type": "sse", "url": "${DOCS_URL:-https://docs.example.test}/sse"},
            api={"url": "https://api.example.test/mcp"},  # no type: Streamable HTTP
        ),
    )
    outcome = ws.run(GITHUB_TOKEN="ghp-1")
    github, docs, api = outcome.servers
    assert (github.transport, github.command, github.env) == (
        "stdio",
        "npx",
        {"GITHUB_TOKEN": "ghp-1"},
    )
    assert (docs.transport, docs.url) == ("sse", "https://docs.example.test/sse")
    assert (api.transport, api.url) == ("http", "https://api.example.test/mcp")


def test_the_second_project_file_only_when_the_first_yields_no_server(ws: Workspace) -> None:
    ws.write(".claude/mcp.json", servers(b={"command": "fallback"}))
    assert names(ws.run()) == [("b", "mcp.json")]
    ws.write(".claude/.mcp.json", servers(a={"command": "first"}))
    assert names(ws.run()) == [("a", ".mcp.json")]
    ws.write(".claude/.mcp.json", servers(**{"bad name": {"command": "x"}}))
    assert names(ws.run()) == [("b", "mcp.json")]  # only skipped entries: no server yielded


def test_user_state_file_project_entries_first_then_top_level(ws: Workspace) -> None:
    ws.write(".claude.json", state_file(ws.proj), user=True)
    ws.write(".claude/mcp.json", servers(never={"command": "x"}), user=True)
    outcome = ws.run(**OPT_IN)
    assert [s.name for s in outcome.servers] == ["local-scoped", "shared", "user-scoped"]
    local, shared, _ = outcome.servers
    assert local.headers == {"X-Key": "none"} and local.oauth is None
    assert shared.command == "from-project"
    assert all(s.source.scope == "user" for s in outcome.servers)


def test_project_key_matches_the_realpath_of_the_requesting_directory(ws: Workspace) -> None:
    link = ws.root / "link-to-proj"
    link.symlink_to(ws.proj)
    ws.write(
        ".claude.json",
        {"projects": {str(ws.proj) + "/": {"mcpServers": {"via-real": {"command": "x"}}}}},
        user=True,
    )
    assert [s.name for s in ws.run(cwd=link, **OPT_IN).servers] == ["via-real"]
    # and the other way round: the key is the link's spelling (macOS /var vs /private/var)
    ws.write(
        ".claude.json",
        {
            "projects": {
                str(link): {"mcpServers": {"via-link": {"command": "x"}}},
                "relative/key": {},
                "/a\u0000b": {},
            }
        },
        user=True,
    )
    assert [s.name for s in ws.run(**OPT_IN).servers] == ["via-link"]


def test_user_mcp_json_only_when_the_state_file_yields_nothing_here(ws: Workspace) -> None:
    ws.write(".claude/mcp.json", servers(fallback={"command": "x"}), user=True)
    assert [s.name for s in ws.run(**OPT_IN).servers] == ["fallback"]
    ws.write(
        ".claude.json",
        {"projects": {"/elsewhere": {"mcpServers": {"o": {"command": "x"}}}}},
        user=True,
    )
    assert [s.name for s in ws.run(**OPT_IN).servers] == ["fallback"]
    ws.write(".claude.json", state_file(ws.proj), user=True)
    assert "fallback" not in [s.name for s in ws.run(**OPT_IN).servers]


def test_a_malformed_state_file_is_reported_and_the_fallback_read(ws: Workspace) -> None:
    ws.write(".claude.json", '{"mcpServers": {', user=True)
    ws.write(".claude/mcp.json", servers(fallback={"command": "x"}), user=True)
    outcome = ws.run(**OPT_IN)
    assert [e.kind for e in outcome.errors] == ["parse"]
    assert [s.name for s in outcome.servers] == ["fallback"]


def test_wrong_shapes_in_the_state_file(ws: Workspace) -> None:
    ws.write(".claude.json", {"projects": {str(ws.proj): {"mcpServers": []}}}, user=True)
    assert [e.kind for e in ws.run(**OPT_IN).errors] == ["schema"]
    ws.write(".claude.json", {"projects": ["x"], "mcpServers": {"t": {"command": "x"}}}, user=True)
    assert [s.name for s in ws.run(**OPT_IN).servers] == ["t"]


def test_claude_config_dir_relocates_both_files(ws: Workspace, tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    ws.write(".claude.json", servers(home={"command": "x"}), user=True)
    (config / "mcp.json").write_text('{"mcpServers": {"relocated": {"command": "x"}}}')
    outcome = ws.run(CLAUDE_CONFIG_DIR=str(config))
    assert [(s.name, s.source.file) for s in outcome.servers] == [
        ("relocated", str(config / "mcp.json"))
    ]


def test_claude_config_dir_respects_isolation(ws: Workspace, tmp_path: Path) -> None:
    config = tmp_path / "cfg"
    config.mkdir()
    (config / ".claude.json").write_text('{"mcpServers": {"c": {"command": "x"}}}')
    assert ws.run(CLAUDE_CONFIG_DIR=str(config), LEMON_AGENT_DIR=str(tmp_path / "a")).servers == ()


def test_user_files_are_not_read_without_opt_in(ws: Workspace) -> None:
    path = ws.write(".claude.json", "{ broken", user=True)
    os.chmod(path, 0)
    assert ws.run() == type(ws.run())()


def test_registered_through_its_own_entry_point(ws: Workspace) -> None:
    info = next(i for i in ws.plugins.infos if i.name == "mcp_importers.claude")
    assert info.entry_point == "lemon_plugins.mcp_importers.claude" and info.builtin
    assert next(i for i in ws.plugins.mcp_importers() if i.name == "claude").order == 20


# -- the state file's own size cap ------------------------------------------------------------

MIB = 1024 * 1024
#: The cap of Claude Code's user state file (other files keep 4 MiB).
STATE_FILE_MAX_BYTES = 64 * MIB


def _padded(ws: Workspace, rel: str, data: dict[str, Any], size: int, *, user: bool) -> Path:
    """``data`` as JSON followed by white space (valid JSON) up to ``size`` bytes."""
    path = ws.write(rel, data, user=user)
    with path.open("ab") as handle:
        handle.write(b" " * (size - path.stat().st_size))
    assert path.stat().st_size == size
    return path


@pytest.mark.parametrize("relocated", [False, True])
def test_a_state_file_over_4_mib_is_read(ws: Workspace, tmp_path: Path, relocated: bool) -> None:
    """Real ``~/.claude.json`` files carry project history and often exceed 4 MiB."""
    env = dict(OPT_IN)
    if relocated:
        env = {"CLAUDE_CONFIG_DIR": str(ws.home / "cfg")}
    rel = "cfg/.claude.json" if relocated else ".claude.json"
    _padded(ws, rel, state_file(ws.proj), 4 * MIB + 1024, user=True)
    outcome = ws.run(**env)
    assert outcome.errors == ()
    assert [s.name for s in outcome.servers] == ["local-scoped", "shared", "user-scoped"]


def test_other_claude_files_keep_the_4_mib_cap(ws: Workspace) -> None:
    _padded(ws, ".claude/.mcp.json", servers(p={"command": "x"}), 4 * MIB + 1, user=False)
    _padded(ws, ".claude/mcp.json", servers(u={"command": "x"}), 4 * MIB + 1, user=True)
    outcome = ws.run(**OPT_IN)
    assert outcome.servers == ()
    assert [(e.scope, e.kind, Path(e.file).name) for e in outcome.errors] == [
        ("project", "read", ".mcp.json"),
        ("user", "read", "mcp.json"),
    ]
    assert all("too large" in e.message for e in outcome.errors)


def test_a_state_file_over_its_own_cap_is_refused_unread(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ws.write(".claude.json", state_file(ws.proj), user=True)
    with path.open("r+b") as handle:  # sparse: no disk space, but stat says 64 MiB + 1
        handle.truncate(STATE_FILE_MAX_BYTES + 1)
    ws.write(".claude/mcp.json", servers(fallback={"command": "x"}), user=True)
    read_bytes: list[int] = []
    real_read = os.read

    def counting_read(fd: int, size: int) -> bytes:
        chunk = real_read(fd, size)
        read_bytes.append(len(chunk))
        return chunk

    monkeypatch.setattr(os, "read", counting_read)
    outcome = ws.run(**OPT_IN)
    monkeypatch.undo()
    assert [(e.kind, e.file) for e in outcome.errors] == [("read", str(path))]
    assert "too large" in outcome.errors[0].message
    assert [s.name for s in outcome.servers] == ["fallback"]
    assert sum(read_bytes) < MIB  # only the small fallback file was read
