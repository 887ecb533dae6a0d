"""The trust store and the launch identity it binds (lemon_core.mcp.trust)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from lemon_core.context import LemonContext
from lemon_core.mcp.trust.identity import (
    launch_lines,
    needs_trust,
    record_name,
    shown_url,
)
from lemon_core.mcp.trust.policy import (
    StoreTrust,
    UntrustedServerError,
    require_trusted,
)
from lemon_core.mcp.trust.store import (
    TrustStoreError,
    read_store,
    store_path,
    trust_servers,
    untrust_servers,
)
from lemon_core.models import McpServer, ServerSource

PROJECT = ServerSource("claude", "project", "/p/.mcp.json")
SERVER = McpServer("s", "stdio", PROJECT, command="node", args=("srv.js",),
                   env={"TOKEN": "VALUE-1"})


@pytest.fixture
def ctx(make_ctx: Callable[..., LemonContext], tmp_path: Path) -> LemonContext:
    return make_ctx(LEMON_AGENT_DIR=str(tmp_path / "agent"))


def test_only_project_scopes_need_trust() -> None:
    for scope in ("global", "user", "env"):
        assert not needs_trust(attrs.evolve(SERVER, source=ServerSource("x", scope)))
    for scope in ("project", "workspace", ""):  # an unknown scope fails closed
        assert needs_trust(attrs.evolve(SERVER, source=ServerSource("x", scope)))


@pytest.mark.parametrize("change", [
    {"command": "nodejs"}, {"args": ("other.js",)}, {"cwd": "/elsewhere"},
    {"env": {"TOKEN": "VALUE-2"}}, {"env": {"TOKEN2": "VALUE-1"}}, {"transport": "http",
                                                                     "url": "http://x/"},
    {"headers": {"A": "b"}}, {"oauth": {"client_id": "c"}},
])
def test_any_change_of_the_launch_identity_untrusts(ctx: LemonContext, change: dict) -> None:
    trust_servers(ctx, [SERVER])
    policy = StoreTrust(ctx)
    assert policy(ctx.cwd, SERVER)
    assert not policy(ctx.cwd, attrs.evolve(SERVER, **change))
    # what does not launch anything does not matter
    assert policy(ctx.cwd, attrs.evolve(SERVER, timeout_ms=5, source=ServerSource("r", "project")))


def test_records_are_per_project_and_never_hold_a_value(ctx: LemonContext,
                                                       tmp_path: Path) -> None:
    trust_servers(ctx, [SERVER])
    other = ctx.evolve(cwd=tmp_path)
    assert not StoreTrust(other)(other.cwd, SERVER)
    path = store_path(ctx)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "VALUE-1" not in path.read_text()
    assert untrust_servers(ctx, ["s"]) == ["s"] and not StoreTrust(ctx)(ctx.cwd, SERVER)


def test_the_policy_reads_a_changed_store_again(ctx: LemonContext) -> None:
    policy = StoreTrust(ctx)
    assert not policy(ctx.cwd, SERVER)
    trust_servers(ctx, [SERVER])  # e.g. 'lemon mcp trust' while a gateway runs
    assert policy(ctx.cwd, SERVER)


def test_an_invalid_store_trusts_nothing_and_is_not_overwritten(ctx: LemonContext) -> None:
    path = store_path(ctx)
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "projects": []}')
    policy = StoreTrust(ctx)
    assert not policy(ctx.cwd, SERVER) and "not a valid MCP trust store" in policy.problem
    with pytest.raises(TrustStoreError):
        trust_servers(ctx, [SERVER])
    assert path.read_text() == '{"version": 1, "projects": []}'


def test_a_store_inside_the_project_is_never_used(make_ctx: Callable[..., LemonContext],
                                                  project: Path) -> None:
    inside = make_ctx(LEMON_AGENT_DIR=str(project / ".lemon" / "agent"))
    with pytest.raises(TrustStoreError, match="inside the project"):
        trust_servers(inside, [SERVER])
    planted = project / ".lemon" / "agent" / "mcp-trust.json"
    planted.parent.mkdir(parents=True)
    planted.write_text("{}")
    policy = StoreTrust(inside)
    assert not policy(inside.cwd, SERVER) and "inside the project" in policy.problem
    with pytest.raises(UntrustedServerError):
        require_trusted(inside, SERVER)


def test_launch_lines_hide_values_and_names_stay_stable() -> None:
    http = McpServer("h", "http", PROJECT, url="https://me:pw@host.test/mcp?key=VALUE-9&x",
                     headers={"Authorization": "Bearer VALUE-3"})
    text = "\n".join(launch_lines(SERVER) + launch_lines(http))
    assert '["node", "srv.js"]' in text and "TOKEN=<hidden>" in text
    assert "https://***@host.test/mcp?key=***&x" in text and "Authorization: <hidden>" in text
    assert "VALUE" not in text and "pw" not in text
    assert shown_url("http://host/") == "http://host/"
    unnamed = attrs.evolve(SERVER, name=None)
    assert record_name(unnamed).startswith("unnamed-") and record_name(SERVER) == "s"


def test_read_store_of_nothing_is_empty(ctx: LemonContext) -> None:
    assert read_store(ctx).projects == {} and not os.path.exists(store_path(ctx))


def test_a_policy_that_fails_or_answers_loosely_trusts_nothing() -> None:
    from lemon_core.mcp.trust.policy import untrusted

    def broken(project: Path, server: McpServer) -> bool:
        raise RuntimeError("embedder bug")

    assert untrusted([SERVER], Path("/p"), broken) == [SERVER]
    assert untrusted([SERVER], Path("/p"), lambda p, s: "yes") == [SERVER]  # type: ignore[arg-type, return-value]
    own = attrs.evolve(SERVER, source=ServerSource("lemon", "global"))
    assert untrusted([own], Path("/p"), broken) == []  # never asked about the user's own
