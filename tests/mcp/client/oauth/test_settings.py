"""The ``oauth`` block resolved (no servers needed): scopes, secrets from the environment, the
loopback-only redirect, the cache slot, persistence; and the redirect receiver on its own."""

from __future__ import annotations

import os
import stat
from typing import Any

import httpx2
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.oauth.receiver import RedirectReceiver
from lemon_core.mcp.client.oauth.settings import settings_for, slot_file_name
from lemon_core.mcp.client.oauth.store import CacheFile
from lemon_core.mcp.schema import parse_entry
from lemon_core.models import McpServer
from tests.mcp.client.oauth.support import SOURCE
from tests.mcp.client.servers import free_port


def entry(oauth: dict[str, Any], **extra: Any) -> McpServer:
    raw = {"name": "api", "type": "http", "url": "https://mcp.example.com/mcp", "oauth": oauth,
           **extra}
    return parse_entry(raw, label="servers[0]", source=SOURCE)


CC = {"client_id": "c", "client_secret": "SETTINGS-SECRET-1212"}


def test_defaults_and_scopes(ctx: LemonContext) -> None:
    settings = settings_for(entry({**CC, "scope": "a b", "scopes": ["b", "c"]}), ctx)
    assert settings is not None
    assert settings.flow == "client_credentials" and settings.scope == "a b c"
    assert settings.token_auth_method == "client_secret_basic" and settings.persist
    assert "SETTINGS-SECRET-1212" not in repr(settings)


def test_no_oauth_block_means_no_settings(ctx: LemonContext) -> None:
    plain = parse_entry({"name": "x", "type": "http", "url": "https://h/mcp"}, label="s",
                        source=SOURCE)
    assert settings_for(plain, ctx) is None


def test_the_secret_comes_from_the_named_variable(make_ctx, tmp_path) -> None:  # type: ignore[no-untyped-def]
    ctx = make_ctx(MY_SECRET="FROM-ENV-3434")
    settings = settings_for(entry({"client_id": "c", "client_secret_secret": "MY_SECRET"}), ctx)
    assert settings is not None and settings.client_secret == "FROM-ENV-3434"


@pytest.mark.parametrize("uri", ["http://example.com:8000/cb", "https://127.0.0.1:8000/cb",
                                 "http://127.0.0.1/cb", "http://10.0.0.1:8000/cb"])
def test_only_a_loopback_redirect_with_a_port(ctx: LemonContext, uri: str) -> None:
    with pytest.raises(McpConnectionError) as caught:
        settings_for(entry({"client_id": "p", "flow": "authorization_code_pkce",
                            "redirect_uri": uri}), ctx)
    assert caught.value.kind == "auth_config" and "127.0.0.1:PORT" in str(caught.value)


def test_slots(ctx: LemonContext) -> None:
    named = settings_for(entry({**CC, "token_secret": "team"}), ctx)
    side = settings_for(entry(CC, oauth_token_secret="team"), ctx)
    derived = settings_for(entry(CC), ctx)
    assert named is not None and side is not None and derived is not None
    assert named.slot == side.slot == "slot:team" and derived.slot != named.slot
    name = slot_file_name(named.slot)
    assert len(name) == 37 and name.endswith(".json") and "team" not in name


def test_persist_false_and_the_cache_folder_mode(ctx: LemonContext) -> None:
    memory = settings_for(entry(CC, persist_oauth_tokens=False), ctx)
    assert memory is not None and not memory.persist and CacheFile(memory, ctx).path is None
    settings = settings_for(entry(CC), ctx)
    assert settings is not None
    cache = CacheFile(settings, ctx)
    assert cache.path is not None
    cache.path.parent.mkdir(parents=True, mode=0o755)
    os.chmod(cache.path.parent, 0o755)
    cache.save({"tokens": {"access_token": "x", "token_type": "Bearer"}})
    assert stat.S_IMODE(os.stat(cache.path.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(cache.path).st_mode) == 0o600
    assert cache.load()["tokens"]["access_token"] == "x"  # type: ignore[index]
    assert cache.delete() and not cache.delete() and cache.load() is None


def test_the_receiver_listens_on_loopback_for_one_redirect() -> None:
    import anyio

    port = free_port()
    receiver = RedirectReceiver("127.0.0.1", port, "/callback")
    receiver.start()
    try:
        base = f"http://127.0.0.1:{port}"
        assert httpx2.get(f"{base}/other", trust_env=False).status_code == 404
        assert httpx2.get(f"{base}/callback?code=C1&state=S1", trust_env=False).status_code == 200
        assert httpx2.get(f"{base}/callback?code=C2&state=S2",
                          trust_env=False).status_code == 404  # one redirect only
        assert anyio.run(receiver.wait) == {"code": "C1", "state": "S1"}
    finally:
        receiver.close()
    with pytest.raises(httpx2.ConnectError):
        httpx2.get(f"http://127.0.0.1:{port}/callback", trust_env=False)
