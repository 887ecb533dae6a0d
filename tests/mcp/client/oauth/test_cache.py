"""The token cache: private files (0600 in a 0700 folder) that survive a new connection and a
new tool host, refused when others may read them or they are not regular files, memory only
with ``persist_oauth_tokens: false``, shared through a named slot."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.oauth import store
from lemon_core.mcp.runtime.host import McpHost
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET
from tests.mcp.client.oauth.conftest import Rig, write_project
from tests.mcp.client.oauth.support import cache_files, credentials, read_cache


def test_cache_file_is_private_and_holds_the_tokens(rig: Rig, ctx: LemonContext) -> None:
    probe(credentials(rig), ctx)
    (path,) = cache_files(ctx)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    record = read_cache(path)
    assert record["tokens"]["access_token"] in rig.auth.access
    assert record["oauth_metadata"]["token_endpoint"] == f"{rig.auth.url}/token"
    assert CLIENT_SECRET not in path.read_text(encoding="utf-8")  # the secret is not cached
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606])
def test_a_cache_others_may_read_is_refused(rig: Rig, ctx: LemonContext, mode: int) -> None:
    probe(credentials(rig), ctx)
    (path,) = cache_files(ctx)
    token = read_cache(path)["tokens"]["access_token"]
    os.chmod(path, mode)
    with pytest.raises(McpConnectionError) as caught:
        probe(credentials(rig), ctx)
    message = str(caught.value)
    assert caught.value.kind == "auth_cache" and str(path) in message
    assert f"{mode:04o}" in message and "lemon mcp logout api" in message
    assert token not in message


def test_a_fifo_or_symlink_cache_is_refused_without_blocking(rig: Rig,
                                                             ctx: LemonContext) -> None:
    probe(credentials(rig), ctx)
    (path,) = cache_files(ctx)
    real = path.with_name("elsewhere.json")
    os.replace(path, real)
    os.symlink(real, path)
    with pytest.raises(McpConnectionError) as caught:
        probe(credentials(rig), ctx)
    assert caught.value.kind == "auth_cache"
    os.unlink(path)
    os.mkfifo(path, 0o600)
    done: list[BaseException] = []

    def attempt() -> None:
        try:
            probe(credentials(rig), ctx)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            done.append(exc)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "reading a FIFO cache blocked"
    assert isinstance(done[0], McpConnectionError) and done[0].kind == "auth_cache"
    assert "not a regular file" in str(done[0])


def test_persist_false_keeps_tokens_in_memory_only(rig: Rig, ctx: LemonContext) -> None:
    entry = credentials(rig, persist_oauth_tokens=False)
    probe(entry, ctx)
    probe(entry, ctx)  # a reconnect in this process finds them in memory
    assert rig.auth.grants == ["client_credentials"]
    assert cache_files(ctx) == [] and not (ctx.agent_dir / "mcp-oauth").exists()
    store._MEMORY.clear()  # what a restart does
    probe(entry, ctx)
    assert rig.auth.grants == ["client_credentials", "client_credentials"]


def test_a_named_slot_is_shared(rig: Rig, ctx: LemonContext) -> None:
    probe(credentials(rig, "one", token_secret="team-api"), ctx)
    probe(credentials(rig, "two", token_secret="team-api"), ctx)
    assert rig.auth.grants == ["client_credentials"]
    assert len(cache_files(ctx)) == 1


def test_the_cache_survives_a_new_host(rig: Rig, ctx: LemonContext) -> None:
    rig.auth.auth_method = "client_secret_basic"
    entry = rig.entry(client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                      token_auth_method="client_secret_basic")
    write_project(ctx.cwd, entry)
    with McpHost(ctx) as host:
        assert "echo" in [t.raw for t in host.tools()]
    assert rig.auth.grants == ["client_credentials"]
    with McpHost(ctx) as host:
        echo = next(t for t in host.tools() if t.raw == "echo")
        result = host.call(echo.name, {"text": "hi"})
    assert rig.auth.grants == ["client_credentials"]
    assert "hi" in str(result)
