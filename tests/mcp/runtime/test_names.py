"""Model-facing names: bounded, ASCII, distinct where the issue says they must be."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from lemon_core.mcp.runtime.names import (
    MAX_NAME,
    UTILITIES,
    model_name,
    server_identity,
)
from lemon_core.models import McpServer, ServerSource

SHAPE = re.compile(r"^mcp_[a-z0-9_]+_[0-9a-f]{16}$")
SRC = ServerSource("lemon", "project")


def _server(name: str = "npx", **kw: object) -> McpServer:
    return McpServer(name=name, transport="stdio", source=SRC, command="npx", **kw)  # type: ignore[arg-type]


@given(st.text(max_size=200), st.text(max_size=300), st.sampled_from(["tool", "utility"]))
def test_any_name_is_ascii_bounded_and_shaped(server: str, raw: str, kind: str) -> None:
    name = model_name("id", server, raw, kind)
    assert name.isascii() and len(name) <= MAX_NAME
    assert SHAPE.match(name)


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=80))
def test_distinct_raw_names_give_distinct_names(a: str, b: str) -> None:
    if a != b:
        assert model_name("id", "s", a) != model_name("id", "s", b)


def test_names_that_slug_alike_differ() -> None:
    assert model_name("id", "s", "Read-File") != model_name("id", "s", "read_file")


def test_same_name_two_configurations_differ() -> None:
    one = server_identity(_server(args=("-y", "server-a")))
    two = server_identity(_server(args=("-y", "server-b")))
    assert one != two
    assert model_name(one, "npx", "read") != model_name(two, "npx", "read")


def test_remote_tool_named_like_a_utility_differs() -> None:
    ident = server_identity(_server())
    for utility in UTILITIES:
        assert model_name(ident, "npx", utility, "utility") != model_name(ident, "npx", utility)


def test_stable_and_readable() -> None:
    ident = server_identity(_server())
    assert model_name(ident, "npx", "read_file") == model_name(ident, "npx", "read_file")
    assert model_name(ident, "npx", "read_file").startswith("mcp_npx_read_file_")
    assert server_identity(_server()) == ident


def test_long_names_keep_a_server_prefix() -> None:
    name = model_name("id", "a-very-long-server-name-indeed", "t" * 100)
    assert name.startswith("mcp_a_very_long_serv_ttt")
    assert len(name) == MAX_NAME
