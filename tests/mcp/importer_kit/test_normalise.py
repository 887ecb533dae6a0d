"""The shared field rules every importer applies."""

from __future__ import annotations

import math

import pytest

from lemon_core.mcp.importer_kit.expand import expand_vars
from lemon_core.mcp.importer_kit.normalise import (
    SKIP_REASONS,
    EntrySkipped,
    normalise,
    to_ms,
    valid_name,
)
from lemon_core.models import ServerSource

SOURCE = ServerSource("omp", "project", "/p/.omp/mcp.json")


@pytest.mark.parametrize("name", ["a", "A", "0", "a" * 64, "a.b_c-d", "9lives", "x-"])
def test_valid_names(name: str) -> None:
    assert valid_name(name)


@pytest.mark.parametrize(
    "name",
    ["", "a" * 65, "-a", "_a", ".a", "a b", "a:b", "a/b", "é", "a\n", "\u0430", "\uff10", None, 5],
)
def test_invalid_names(name: object) -> None:
    assert not valid_name(name)


def test_transport_inference_and_other_transport_fields_dropped() -> None:
    stdio = normalise("s", {"command": "x", "headers": {"H": "v"}}, SOURCE)
    assert (stdio.transport, stdio.headers, stdio.url) == ("stdio", {}, None)
    http = normalise(
        "h", {"url": "https://e", "env": {"K": "v"}, "args": ["a"], "cwd": "/c"}, SOURCE
    )
    assert (http.transport, http.env, http.args, http.cwd) == ("http", {}, (), None)


def test_expansion_only_in_values_of_the_named_fields() -> None:
    env = {"X": "1"}
    server = normalise(
        "s",
        {
            "command": "${X}",
            "args": ["${X}"],
            "env": {"${X}": "${X}"},
            "cwd": "${X}",
            "allow_tools": ["${X}"],
        },
        SOURCE,
        lambda value: expand_vars(value, env),
    )
    assert (server.command, server.args, server.cwd) == ("1", ("1",), "1")
    assert server.env == {"${X}": "1"} and server.allow_tools == ("${X}",)
    remote = normalise(
        "r",
        {"url": "https://${X}", "headers": {"H": "${X}"}},
        SOURCE,
        lambda value: expand_vars(value, env),
    )
    assert (remote.url, dict(remote.headers)) == ("https://1", {"H": "1"})
    # a header *name* is never expanded, and "${X}" is not an HTTP header name: skipped
    with pytest.raises(EntrySkipped, match="invalid_entry"):
        normalise("r", {"url": "https://h.test", "headers": {"${X}": "v"}}, SOURCE,
                  lambda value: expand_vars(value, env))


@pytest.mark.parametrize(
    ("value", "per_unit", "expected"),
    [(0, 1, None), (1500, 1, 1500), (1.5, 1000, 1500), (0.0004, 1000, 1), (2.6, 1, 3)],
)
def test_to_ms(value: float, per_unit: float, expected: int | None) -> None:
    assert to_ms(value, per_unit) == expected


@pytest.mark.parametrize("value", [-1, math.inf, math.nan, True, "10", None, 1e308 * 10])
def test_to_ms_rejects(value: object) -> None:
    with pytest.raises(EntrySkipped):
        to_ms(value, 1000)


def test_overflowing_seconds_are_rejected() -> None:
    with pytest.raises(EntrySkipped):
        to_ms(1e308, 1000)


def test_every_reason_is_documented() -> None:
    reasons = set()
    for fields in [
        {"command": "x", "url": "u"},
        {},
        {"type": "ws", "url": "u"},
        {"type": "sse", "command": "x"},
        {"command": 1},
    ]:
        with pytest.raises(EntrySkipped) as info:
            normalise("n", fields, SOURCE)
        reasons.add(info.value.reason)
    with pytest.raises(EntrySkipped) as info:
        normalise("bad name", {"command": "x"}, SOURCE)
    reasons.add(info.value.reason)
    with pytest.raises(EntrySkipped) as info:
        normalise("n", {"url": "SECRETurl"}, SOURCE)
    reasons.add(info.value.reason)
    # the file importer's own reasons (see tests/plugins/mcp_importers/test_opencode.py)
    assert reasons | {"substituted_name", "substituted_field"} == set(SKIP_REASONS)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"url": "SECRETurl"}, "invalid_url"),
        ({"url": "https://"}, "invalid_url"),
        ({"url": "https://h.test/a b"}, "invalid_url"),
        ({"url": "ftp://h.test"}, "invalid_url"),
        ({"url": "https://h.test", "headers": {"Bad Name": "v"}}, "invalid_entry"),
        ({"url": "https://h.test", "headers": {"X": "line\nbreak"}}, "invalid_entry"),
        ({"command": "x", "env": {"A=B": "v"}}, "invalid_entry"),
    ],
)
def test_entries_meet_the_schema_of_lemons_own_files(fields: dict, reason: str) -> None:
    with pytest.raises(EntrySkipped) as info:
        normalise("n", fields, SOURCE)
    assert info.value.reason == reason


def test_the_schema_is_checked_after_expansion() -> None:
    def expand(value: str) -> str:
        return value.replace("${U}", "https://h.test")

    assert normalise("n", {"url": "${U}/mcp"}, SOURCE, expand).url == "https://h.test/mcp"
    with pytest.raises(EntrySkipped, match="invalid_url"):
        normalise("n", {"url": "${UNSET}"}, SOURCE)


@pytest.mark.parametrize("value", [10**400, -(10**400)])
def test_integers_too_large_for_a_float_skip_the_entry(value: int) -> None:
    with pytest.raises(EntrySkipped, match="invalid_entry"):
        to_ms(value)
    with pytest.raises(EntrySkipped, match="invalid_entry"):
        normalise("n", {"command": "x", "timeout_ms": value}, SOURCE)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"command": "x", "url": "u", "enabled": "no"}, "command_and_url"),
        ({"command": 1, "url": "u", "args": "a"}, "command_and_url"),
        ({"args": 5, "disabled": "yes"}, "no_command_or_url"),
        ({"type": 7, "command": "x", "env": []}, "invalid_entry"),
    ],
)
def test_presence_is_checked_before_field_types(fields: dict[str, object], reason: str) -> None:
    with pytest.raises(EntrySkipped) as info:
        normalise("n", fields, SOURCE)
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("fields", "enabled"),
    [({}, True), ({"enabled": True}, True), ({"enabled": False}, False),
     ({"disabled": True}, False), ({"enabled": True, "disabled": True}, False),
     ({"disabled": False}, True)],
)  # fmt: skip
def test_enabled_and_disabled(fields: dict[str, object], enabled: bool) -> None:
    assert normalise("n", {"command": "x", **fields}, SOURCE).enabled is enabled


@pytest.mark.parametrize("fields", [{"command": "${CMD:-}"}, {"url": "${URL}"}])
def test_a_command_or_url_that_expands_to_nothing_is_skipped(fields: dict[str, str]) -> None:
    with pytest.raises(EntrySkipped, match="invalid_entry"):
        normalise("n", fields, SOURCE, lambda value: expand_vars(value, {"URL": ""}))
