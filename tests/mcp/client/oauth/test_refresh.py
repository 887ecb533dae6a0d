"""Refresh tokens: rotation stored, a missing new one keeping the old, a refused refresh
leading to exactly one re-acquisition, all resumed from the cache by a new connection; several
processes refreshing one slot at once refresh once and share the rotated tokens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from tests.mcp.client.oauth.authserver import CLIENT_ID, CLIENT_SECRET
from tests.mcp.client.oauth.conftest import Rig
from tests.mcp.client.oauth.support import (
    cache_files,
    credentials,
    expire_cached,
    read_cache,
)

pytestmark = pytest.mark.integration  # starts processes or loopback servers


REFRESHER = Path(__file__).parent / "refresher.py"
ROOT = Path(__file__).parents[4]


def _refresh_token(ctx: LemonContext) -> str:
    (path,) = cache_files(ctx)
    return read_cache(path)["tokens"]["refresh_token"]


def test_refresh_rotates_and_stores_the_new_refresh_token(rig: Rig, ctx: LemonContext) -> None:
    entry = credentials(rig)
    probe(entry, ctx)
    first = _refresh_token(ctx)
    expire_cached(ctx, rig)
    seen_before = len(rig.auth.seen)
    probe(entry, ctx)  # a new connection: resumes from the cache, refreshes before the MCP call
    assert rig.auth.grants == ["client_credentials", "refresh_token"]
    second = _refresh_token(ctx)
    assert second != first and first not in rig.auth.refresh and second in rig.auth.refresh
    refresh = [s for s in rig.auth.seen[seen_before:] if s.path == "/token"]
    assert refresh[0].form["refresh_token"] == first
    # the token endpoint came from the cached metadata: no rediscovery before the refresh
    assert rig.auth.seen[seen_before].path == "/token"


def test_refresh_without_a_new_refresh_token_keeps_the_old_one(rig: Rig,
                                                               ctx: LemonContext) -> None:
    rig.auth.rotate = False
    entry = credentials(rig)
    probe(entry, ctx)
    first = _refresh_token(ctx)
    for _ in range(2):
        expire_cached(ctx, rig)
        probe(entry, ctx)
        assert _refresh_token(ctx) == first
    assert rig.auth.grants == ["client_credentials", "refresh_token", "refresh_token"]


def test_a_refused_refresh_reacquires_once(rig: Rig, ctx: LemonContext) -> None:
    entry = credentials(rig)
    probe(entry, ctx)
    expire_cached(ctx, rig)
    rig.auth.refresh.clear()  # every refresh token is now expired / revoked
    result = probe(entry, ctx)
    assert [t.name for t in result.tools] == ["echo"]
    assert rig.auth.grants == ["client_credentials", "refresh_token", "client_credentials"]
    assert _refresh_token(ctx) in rig.auth.refresh


def test_cached_token_skips_discovery_and_grants(rig: Rig, ctx: LemonContext) -> None:
    entry = credentials(rig)
    probe(entry, ctx)
    seen = len(rig.auth.seen)
    mcp_seen = len(rig.mcp_requests())
    probe(entry, ctx)
    assert rig.auth.grants == ["client_credentials"]
    assert all(s.path == "/introspect" for s in rig.auth.seen[seen:])
    assert not any(r["path"].startswith("/.well-known/") for r in rig.mcp_requests()[mcp_seen:])


def test_a_rejected_access_token_is_refreshed_first(rig: Rig, ctx: LemonContext) -> None:
    entry = credentials(rig)
    probe(entry, ctx)
    rig.auth.expire_access()  # the server rejects a token the client still thinks valid
    seen = len(rig.auth.seen)
    result = probe(entry, ctx)
    assert [t.name for t in result.tools] == ["echo"]
    assert rig.auth.grants == ["client_credentials", "refresh_token"]
    assert not [s for s in rig.auth.seen[seen:] if s.path.startswith("/.well-known/")]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["expired", "rejected"])
def test_processes_refreshing_one_slot_at_once_refresh_once_and_share_the_rotation(
        rig: Rig, ctx: LemonContext, tmp_path: Path, how: str) -> None:
    """Four processes find the slot's access token expired (or the server rejects it) at the
    same moment: one refreshes, the others wait for the slot, re-read it and use the rotated
    tokens; nobody refreshes with a dead refresh token or acquires new tokens."""
    entry = rig.entry(client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                      token_auth_method=rig.auth.auth_method)
    probe(credentials(rig), ctx)
    first = _refresh_token(ctx)
    if how == "expired":
        expire_cached(ctx, rig)  # the client knows
    else:
        rig.auth.expire_access()  # only the server knows: a 401
    rig.auth.delays["/token"] = 0.5  # a slow token endpoint: the processes overlap
    spec = json.dumps({"entry": entry, "cwd": str(ctx.cwd), "home": str(ctx.home),
                       "env": dict(ctx.env)})
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(REFRESHER), spec, str(go)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              cwd=str(ROOT)) for _ in range(4)]
    try:
        for proc in procs:
            assert proc.stdout.readline() == b"ready\n", proc.stderr.read()
        go.touch()
        outputs = [proc.communicate(timeout=120) for proc in procs]
    finally:
        for proc in procs:
            proc.kill()
    results = [json.loads(out.splitlines()[-1]) for out, _err in outputs]
    assert results == [{"tools": ["echo"]}] * 4, results
    assert rig.auth.grants == ["client_credentials", "refresh_token"]
    stored = _refresh_token(ctx)
    assert stored != first and stored in rig.auth.refresh and first not in rig.auth.refresh
    assert not (cache_files(ctx)[0].parent / (cache_files(ctx)[0].name + ".lock")).exists()
    printed = b"".join(out + err for out, err in outputs).decode()
    assert CLIENT_SECRET not in printed and stored not in printed and first not in printed
