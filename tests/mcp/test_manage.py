"""Editing lemon's own MCP files: add (and replace), remove, enable, disable, and safe writes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext
from lemon_core.errors import (
    BusyError,
    ConfigError,
    NotFoundError,
    PlantedLinkError,
    UsageError,
)
from lemon_core.fsio import write as fsio
from lemon_core.mcp import manage
from lemon_core.mcp.config import read_file
from lemon_core.mcp.manage import (
    ServerExistsError,
    add_server,
    disable_server,
    enable_server,
    list_servers,
    lock_timeout,
    remove_server,
)
from lemon_core.mcp.spec import ServerSpec, parse_assignments
from tests.helpers import run_cli
from tests.mcp.support import (
    ENV_SECRET,
    HEADER_SECRET,
    assert_no_secrets,
    ctx,
    global_file,
    project_file,
    write_json,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers

#: Fixtures defined in tests/mcp/support.py (conftest.py belongs to the importer tests).
FIXTURES = (ctx, global_file, project_file)


def stdio(name: str = "git", command: str = "uvx", *args: str, **kw: Any) -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command=command, args=args, **kw)


def remote(name: str = "api", url: str = "https://api.example.com/mcp", transport: str = "http",
           **kw: Any) -> ServerSpec:  # fmt: skip
    return ServerSpec(name=name, transport=transport, url=url, **kw)  # type: ignore[arg-type]


def entries(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text("utf-8"))["servers"]


# -- add --------------------------------------------------------------------------------------


def test_add_creates_the_project_file_privately(ctx: LemonContext, project_file: Path) -> None:
    result = add_server(
        ctx, stdio("filesystem", "npx", "-y", "@modelcontextprotocol/server-filesystem", ".")
    )
    assert (result.action, result.path, result.scope, result.changed) == (
        "added",
        project_file,
        "project",
        True,
    )
    assert entries(project_file) == [{
        "name": "filesystem", "type": "stdio", "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "approval": "always",
    }]  # fmt: skip
    assert stat.S_IMODE(project_file.stat().st_mode) == 0o600
    assert not fsio.lock_path(project_file).exists()
    assert [p.name for p in project_file.parent.iterdir()] == ["mcp.json"]


def test_add_global_uses_the_agent_dir(ctx: LemonContext, global_file: Path) -> None:
    spec = remote("remote", headers={"Authorization": "Bearer TOKEN"})
    assert add_server(ctx, spec, scope="global").path == global_file
    assert entries(global_file) == [{"name": "remote", "type": "http",
                                     "url": "https://api.example.com/mcp",
                                     "headers": {"Authorization": "Bearer TOKEN"},
                                     "approval": "always"}]  # fmt: skip
    assert not (ctx.cwd / ".lemon").exists()


def test_add_writes_every_option(ctx: LemonContext, project_file: Path) -> None:
    spec = stdio("git", "uvx", "mcp-server-git", "--repository", ".", env={"K": "v"},
                 approval="never", tool_approvals={"git_status": "never", "resources/read": "always"})  # fmt: skip
    add_server(ctx, spec)
    (entry,) = entries(project_file)
    assert entry["approval"] == "never" and entry["env"] == {"K": "v"}
    assert entry["tool_approvals"] == {"git_status": "never", "resources/read": "always"}
    add_server(ctx, remote("events", "http://localhost:3001/sse", "sse"))
    assert entries(project_file)[1]["type"] == "sse"


def test_add_refuses_an_existing_name(ctx: LemonContext, project_file: Path) -> None:
    add_server(ctx, stdio())
    before = project_file.read_bytes()
    with pytest.raises(ServerExistsError, match="--replace") as info:
        add_server(ctx, stdio(command="other"))
    assert info.value.exit_code == 1
    assert project_file.read_bytes() == before
    add_server(ctx, stdio("Git"))  # names are case-sensitive
    assert [e["name"] for e in entries(project_file)] == ["git", "Git"]


def test_replace_same_transport_keeps_and_merges_credentials(
    ctx: LemonContext, project_file: Path
) -> None:
    write_json(project_file, {"x-top": 1, "servers": [
        {"name": "other", "type": "stdio", "command": "o", "x": {"y": 1}},
        {"name": "git", "type": "stdio", "command": "old", "args": ["a"], "cwd": "sub",
         "env": {"KEEP": "1", "OVER": "old"}, "timeout-ms": 5, "x-ext": True, "enabled": False,
         "approval": "never", "tool_approvals": {"a": "never"}},
        {"type": "sse", "url": "http://legacy.example/sse"},
    ]})  # fmt: skip
    result = add_server(ctx, stdio("git", "new", "b", env={"OVER": "new", "ADD": "2"},
                                   tool_approvals={"b": "always"}), replace=True)  # fmt: skip
    assert result.action == "replaced"
    data = json.loads(project_file.read_text())
    assert data["x-top"] == 1
    other, git, legacy = data["servers"]
    assert other == {"name": "other", "type": "stdio", "command": "o", "x": {"y": 1}}
    assert legacy == {"type": "sse", "url": "http://legacy.example/sse"}
    assert git == {
        "name": "git", "type": "stdio", "command": "new", "args": ["b"], "cwd": "sub",
        "env": {"KEEP": "1", "OVER": "new", "ADD": "2"}, "timeout_ms": 5, "x-ext": True,
        "enabled": False, "approval": "always", "tool_approvals": {"a": "never", "b": "always"},
    }  # fmt: skip


def test_replace_with_a_transport_change_drops_obsolete_fields(
    ctx: LemonContext, project_file: Path
) -> None:
    write_json(project_file, {"servers": [
        {"name": "x", "type": "stdio", "command": "c", "args": ["a"], "env": {"K": ENV_SECRET},
         "cwd": "d", "timeout_ms": 7, "x-ext": 1},
    ]})  # fmt: skip
    add_server(ctx, remote("x", headers={"H": "v"}), replace=True)
    (entry,) = entries(project_file)
    assert entry == {"name": "x", "type": "http", "timeout_ms": 7, "x-ext": 1,
                     "url": "https://api.example.com/mcp", "headers": {"H": "v"},
                     "approval": "always"}  # fmt: skip
    assert ENV_SECRET not in project_file.read_text()


def test_replace_http_with_sse_drops_headers_and_oauth(
    ctx: LemonContext, project_file: Path
) -> None:
    write_json(project_file, {"servers": [
        {"name": "x", "type": "http", "url": "https://a.example", "headers": {"A": HEADER_SECRET},
         "oauth": {"client_id": "c", "client_secret": "s"}, "persist_oauth_tokens": True},
    ]})  # fmt: skip
    add_server(ctx, remote("x", "https://b.example/sse", "sse"), replace=True)
    assert entries(project_file) == [{"name": "x", "type": "sse", "url": "https://b.example/sse",
                                      "approval": "always"}]  # fmt: skip


def test_replace_same_remote_transport_keeps_headers(ctx: LemonContext, project_file: Path) -> None:
    add_server(ctx, remote("x", headers={"Authorization": "Bearer A", "X-Id": "1"}))
    add_server(ctx, remote("x", "https://new.example/mcp", headers={"X-Id": "2"}), replace=True)
    (entry,) = entries(project_file)
    assert entry["url"] == "https://new.example/mcp"
    assert entry["headers"] == {"Authorization": "Bearer A", "X-Id": "2"}


def test_replace_of_a_missing_name_adds(ctx: LemonContext) -> None:
    assert add_server(ctx, stdio(), replace=True).action == "added"


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        (stdio("bad name"), "invalid server name"),
        (stdio("_x"), "invalid server name"),
        (stdio(command=""), "--stdio needs"),
        (remote(url="ftp://x.example"), "--http needs an http"),
        (remote(url="not a url", transport="sse"), "--sse needs"),
        (remote(env={"K": "v"}), "--env applies only to --stdio"),
        (stdio(headers={"H": "v"}), "--header applies only"),
        (ServerSpec(name="x", transport="http", url="https://x.example", args=("a",)), "after --"),
        (stdio(env={"": "v"}), "--env needs"),
        (remote(headers={"Bad Header": "v"}), "--header needs"),
        (remote(headers={"H": "a\nb"}), "--header needs"),
        (stdio(approval="maybe"), "--approval"),  # type: ignore[arg-type]
        (stdio(tool_approvals={"t": "maybe"}), "--tool-approval"),
        (ServerSpec(name="x", transport="ws", command="c"), "choose a transport"),  # type: ignore[arg-type]
    ],
)  # fmt: skip
def test_invalid_specs_are_usage_errors(ctx: LemonContext, project_file: Path, spec: ServerSpec,
                                        pattern: str) -> None:  # fmt: skip
    with pytest.raises(UsageError, match=pattern) as info:
        add_server(ctx, spec)
    assert info.value.exit_code == 2
    assert not project_file.exists()


def test_parse_assignments_never_quotes_values() -> None:
    assert parse_assignments(["A=1", "B=x=y", "A=2", "C="], "--env") == {
        "A": "2",
        "B": "x=y",
        "C": "",
    }
    for bad in ([ENV_SECRET], [f"={ENV_SECRET}"]):
        with pytest.raises(UsageError, match="--env value #1 must look like KEY=VALUE") as info:
            parse_assignments(bad, "--env")
        assert_no_secrets(str(info.value))


# -- remove -----------------------------------------------------------------------------------


def test_remove_takes_the_exact_name_from_the_chosen_file(ctx: LemonContext, project_file: Path,
                                                          global_file: Path) -> None:  # fmt: skip
    write_json(project_file, {"servers": [{"type": "stdio", "command": "legacy"},
                                          {"name": "git", "type": "stdio", "command": "g"},
                                          {"name": "Git", "type": "stdio", "command": "G"}],
                              "disabled_servers": ["git"]})  # fmt: skip
    write_json(global_file, {"servers": [{"name": "git", "type": "stdio", "command": "g"}]})
    global_before = global_file.read_bytes()
    result = remove_server(ctx, "git")
    assert (result.action, result.transport) == ("removed", "stdio")
    data = json.loads(project_file.read_text())
    assert [e.get("name") for e in data["servers"]] == [None, "Git"]
    assert data["disabled_servers"] == ["git"]
    assert global_file.read_bytes() == global_before
    with pytest.raises(NotFoundError, match='no server named "git"'):
        remove_server(ctx, "git")
    with pytest.raises(NotFoundError):
        remove_server(ctx, "GIT")
    with pytest.raises(UsageError):
        remove_server(ctx, "../git")


def test_remove_from_a_missing_file_creates_nothing(ctx: LemonContext) -> None:
    with pytest.raises(NotFoundError):
        remove_server(ctx, "git")
    assert not (ctx.cwd / ".lemon").exists()


# -- enable / disable -------------------------------------------------------------------------


def test_enable_and_disable_maintain_the_lists(ctx: LemonContext, project_file: Path) -> None:
    result = disable_server(ctx, "github")
    assert (result.action, result.changed) == ("disabled", True)
    assert json.loads(project_file.read_text()) == {"disabled_servers": ["github"]}
    enable_server(ctx, "other")
    enable_server(ctx, "github")
    data = json.loads(project_file.read_text())
    assert data == {"disabled_servers": [], "enabled_servers": ["other", "github"]}
    disable_server(ctx, "github")
    data = json.loads(project_file.read_text())
    assert data == {"disabled_servers": ["github"], "enabled_servers": ["other"]}


def test_unchanged_state_does_not_write(ctx: LemonContext, project_file: Path) -> None:
    disable_server(ctx, "github")
    os.utime(project_file, (1, 1))
    before = project_file.read_bytes()
    result = disable_server(ctx, "github")
    assert not result.changed
    assert project_file.read_bytes() == before and project_file.stat().st_mtime == 1


def test_enable_cleans_hand_written_duplicates(ctx: LemonContext, project_file: Path) -> None:
    write_json(project_file, {"enabled_servers": ["x"], "disabled_servers": ["x", "y", "x"]})
    assert enable_server(ctx, "x").changed
    assert json.loads(project_file.read_text()) == {
        "enabled_servers": ["x"],
        "disabled_servers": ["y"],
    }


def test_enable_global(ctx: LemonContext, global_file: Path) -> None:
    enable_server(ctx, "github", scope="global")
    assert json.loads(global_file.read_text()) == {"enabled_servers": ["github"]}


def test_list_servers(ctx: LemonContext, project_file: Path) -> None:
    assert list_servers(ctx).exists is False
    add_server(ctx, stdio())
    assert [s.name for s in list_servers(ctx).servers] == ["git"]


# -- invalid, busy and changed files are never overwritten ------------------------------------

OPERATIONS = [
    lambda ctx: add_server(ctx, stdio("new")),
    lambda ctx: add_server(ctx, stdio("git"), replace=True),
    lambda ctx: remove_server(ctx, "git"),
    lambda ctx: enable_server(ctx, "git"),
    lambda ctx: disable_server(ctx, "git"),
]


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize(
    "content",
    [b"{not json", b"[]", b'{"servers": [{"name": "git", "type": "stdio"}]}',
     json.dumps({"servers": [{"name": "git", "type": "stdio", "command": "c", "env": {"K": ENV_SECRET}},
                             {"name": "git", "type": "stdio", "command": "d"}]}).encode()],
)  # fmt: skip
def test_invalid_files_are_never_overwritten(ctx: LemonContext, project_file: Path, operation: Any,
                                             content: bytes) -> None:  # fmt: skip
    project_file.parent.mkdir(parents=True)
    project_file.write_bytes(content)
    with pytest.raises(ConfigError) as info:
        operation(ctx)
    assert str(project_file) in str(info.value)
    assert_no_secrets(str(info.value))
    assert project_file.read_bytes() == content
    assert sorted(p.name for p in project_file.parent.iterdir()) == ["mcp.json"]


def test_a_busy_file_is_not_written(ctx: LemonContext, project_file: Path) -> None:
    add_server(ctx, stdio())
    before = project_file.read_bytes()
    with fsio.file_lock(project_file):
        with pytest.raises(BusyError, match="is busy") as info:
            add_server(ctx, stdio("other"), timeout=0.1)
        assert str(fsio.lock_path(project_file)) in str(info.value)
    assert project_file.read_bytes() == before


def test_a_stale_lock_is_reported_with_how_to_clear_it(
    ctx: LemonContext, project_file: Path
) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    lock = fsio.lock_path(project_file)
    lock.mkdir(parents=True)
    import socket

    (lock / "owner").write_text(f"{dead.stdout.strip()}\n{socket.gethostname()}\n")
    started = time.monotonic()
    with pytest.raises(BusyError) as info:
        add_server(ctx, stdio(), timeout=30)  # reported at once, not after the timeout
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert "stale lock" in message and f"remove the directory {lock}" in message
    assert not project_file.exists()
    lock.joinpath("owner").unlink()
    lock.rmdir()
    add_server(ctx, stdio())


def test_an_ownerless_lock_is_busy_then_stale(ctx: LemonContext, project_file: Path) -> None:
    lock = fsio.lock_path(project_file)
    lock.mkdir(parents=True)
    with pytest.raises(BusyError, match="is busy"):
        add_server(ctx, stdio(), timeout=0.05)
    old = time.time() - fsio.ORPHAN_LOCK_AGE - 1
    os.utime(lock, (old, old))
    started = time.monotonic()
    with pytest.raises(BusyError, match="stale lock that records no owner") as info:
        add_server(ctx, stdio(), timeout=30)
    assert time.monotonic() - started < 5
    assert f"remove the directory {lock}" in str(info.value)
    assert not project_file.exists()


def test_a_concurrent_unlocked_edit_is_detected(ctx: LemonContext, project_file: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    add_server(ctx, stdio())
    real_build = manage.build_entry
    calls = {"n": 0}

    def build_and_interfere(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:  # the second call runs under the lock: an editor saves meanwhile
            project_file.write_text('{"servers": []}')
        return real_build(*args)

    monkeypatch.setattr(manage, "build_entry", build_and_interfere)
    with pytest.raises(BusyError, match="changed while lemon was editing it"):
        add_server(ctx, stdio("other"))
    assert project_file.read_text() == '{"servers": []}'


def test_a_failed_rename_leaves_the_old_file_and_no_temp(ctx: LemonContext, project_file: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    add_server(ctx, stdio())
    before = project_file.read_bytes()

    def fail(*args: Any, **kwargs: Any) -> None:  # the project write passes dir_fd keywords
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fsio.os, "replace", fail)
    with pytest.raises(Exception, match="No space left"):
        add_server(ctx, stdio("other"))
    monkeypatch.undo()
    assert project_file.read_bytes() == before
    assert sorted(p.name for p in project_file.parent.iterdir()) == ["mcp.json"]


def test_a_symlinked_global_file_is_written_through_and_the_link_kept(
    ctx: LemonContext, global_file: Path, tmp_path: Path
) -> None:
    """The user's own dotfile link (in the agent folder, where no project can plant it)."""
    target = write_json(tmp_path / "dotfiles" / "mcp.json", {"servers": [], "x-keep": 1})
    global_file.parent.mkdir(parents=True)
    global_file.symlink_to(target)
    add_server(ctx, stdio(), scope="global")
    assert global_file.is_symlink() and global_file.resolve() == target.resolve()
    assert json.loads(target.read_text())["x-keep"] == 1 and entries(target)[0]["name"] == "git"
    assert sorted(p.name for p in target.parent.iterdir()) == ["mcp.json"]


def test_a_planted_project_link_to_another_tools_file_is_refused(
    ctx: LemonContext, project_file: Path, tmp_path: Path
) -> None:
    """Issue 17 §2: ``.lemon/mcp.json -> ~/.cursor/mcp.json`` (same file name) was written
    through; a project's file is never reached through a link."""
    cursor = write_json(tmp_path / "home" / ".cursor" / "mcp.json", {"mcpServers": {}})
    before = cursor.read_bytes()
    project_file.parent.mkdir(parents=True)
    project_file.symlink_to(cursor)
    with pytest.raises(PlantedLinkError, match="mcp.json is a symbolic link") as info:
        add_server(ctx, stdio())
    assert info.value.path == str(project_file)
    assert cursor.read_bytes() == before and project_file.is_symlink()
    assert sorted(p.name for p in cursor.parent.iterdir()) == ["mcp.json"]


def test_a_planted_lemon_folder_link_is_refused(ctx: LemonContext, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ctx.cwd / ".lemon").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(PlantedLinkError, match=r"\.lemon is a symbolic link"):
        add_server(ctx, stdio())
    assert list(elsewhere.iterdir()) == []


def test_a_symlink_to_another_file_or_nowhere_is_refused(ctx: LemonContext, global_file: Path,
                                                         tmp_path: Path) -> None:  # fmt: skip
    other = write_json(tmp_path / "settings.json", {"servers": []})
    global_file.parent.mkdir(parents=True)
    global_file.symlink_to(other)
    with pytest.raises(fsio.UnwritableError, match="only to a regular file also named mcp.json"):
        add_server(ctx, stdio(), scope="global")
    assert json.loads(other.read_text()) == {"servers": []}
    global_file.unlink()
    global_file.symlink_to(tmp_path / "gone" / "mcp.json")
    with pytest.raises(fsio.UnwritableError, match="which does not exist"):
        add_server(ctx, stdio(), scope="global")


def test_a_file_named_lemon_is_reported_as_such(ctx: LemonContext, capsys: Any) -> None:
    (ctx.cwd / ".lemon").write_text("")
    code, out, err = run_cli(capsys, "mcp", "add", "git", "--stdio", "uvx", "--cwd", str(ctx.cwd))
    assert code == 1 and out == "" and err.startswith("lemon: ") and err.count("\n") == 1
    assert err.endswith(f"cannot write {ctx.cwd / '.lemon' / 'mcp.json'}: {ctx.cwd / '.lemon'} "
                        f"is a file, not a folder; move it away (or rename it) and run the "
                        f"command again\n")  # fmt: skip


def test_a_write_is_a_synced_private_temp_file_renamed_under_the_lock(
    ctx: LemonContext, global_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project_file = global_file  # the path-based writer (a project's is in test_beneath)
    events: list[tuple[Any, ...]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        info = os.fstat(fd)
        kind = "file" if stat.S_ISREG(info.st_mode) else "dir"
        events.append(("fsync", kind, stat.S_IMODE(info.st_mode) if kind == "file" else None))
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        temp = Path(src)
        events.append(("replace", temp.parent == project_file.parent and temp != project_file,
                       stat.S_IMODE(temp.stat().st_mode), fsio.lock_path(project_file).is_dir(),
                       [e["name"] for e in json.loads(temp.read_text())["servers"]]))  # fmt: skip
        real_replace(src, dst)

    monkeypatch.setattr(fsio.os, "fsync", fsync)
    monkeypatch.setattr(fsio.os, "replace", replace)
    add_server(ctx, stdio(), scope="global")  # the global file is not trust-recorded
    assert events == [("fsync", "file", 0o600), ("replace", True, 0o600, True, ["git"]),
                      ("fsync", "dir", None)]  # fmt: skip
    assert not fsio.lock_path(project_file).exists()


def test_mode_is_private_whatever_the_umask(ctx: LemonContext, project_file: Path) -> None:
    old = os.umask(0)
    try:
        add_server(ctx, stdio())
    finally:
        os.umask(old)
    assert stat.S_IMODE(project_file.stat().st_mode) == 0o600


def test_unwritable_location_is_one_clean_error(ctx: LemonContext) -> None:
    (ctx.cwd / ".lemon").write_text("a file where the directory should be")
    with pytest.raises(Exception) as info:
        add_server(ctx, stdio())
    assert getattr(info.value, "exit_code", None) == 1


def test_lock_timeout_setting(make_ctx: Any) -> None:
    assert lock_timeout(make_ctx()) == 10.0
    assert lock_timeout(make_ctx(LEMON_LOCK_TIMEOUT="0.5")) == 0.5
    assert lock_timeout(make_ctx(LEMON_LOCK_TIMEOUT="soon")) == 10.0
    assert lock_timeout(make_ctx(), 3) == 3


def test_written_file_reads_back(ctx: LemonContext) -> None:
    add_server(ctx, stdio(env={"A": "1"}, tool_approvals={"t": "never"}))
    add_server(ctx, remote(headers={"H": "v"}))
    disable_server(ctx, "git")
    mcp_file = read_file(ctx, "project")
    assert [s.name for s in mcp_file.servers] == ["git", "api"]
    assert mcp_file.state_for("git") is False


# -- add_entries (a blueprint's servers) -------------------------------------------------------


def test_add_entries_writes_all_in_one_edit_or_none(ctx: LemonContext,
                                                    project_file: Path) -> None:
    add_server(ctx, stdio("keep"))
    add_server(ctx, stdio("docs", "old"))
    before = project_file.read_bytes()
    with pytest.raises(ConfigError):  # the second entry is invalid: nothing is written
        manage.add_entries(ctx, [{"name": "a", "type": "stdio", "command": "echo"},
                                 {"name": "b", "type": "stdio"}])
    assert project_file.read_bytes() == before
    done = manage.add_entries(ctx, [{"name": "a", "type": "stdio", "command": "echo"},
                                    {"name": "docs", "type": "stdio", "command": "new"}])
    assert [(r.name, r.action) for r in done] == [("a", "added"), ("docs", "replaced")]
    assert [(e["name"], e["command"]) for e in entries(project_file)] == [
        ("keep", "uvx"), ("docs", "new"), ("a", "echo")]
