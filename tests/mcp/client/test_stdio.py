"""lemon's stdio transport against real subprocesses: the 8 MiB limit (a flood ends the
connection with ``oversized`` and the buffer never passes the limit; many small lines keep
working), SDK message validation, the environment it passes, and process cleanup."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.stdio import (
    CHUNK_BYTES,
    MAX_MESSAGE_BYTES,
    LineSplitter,
    Oversized,
    StdioTransport,
)
from lemon_core.models import McpServer, ServerSource

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

FLOOD = str(Path(__file__).parent / "flood_server.py")


def _transport(*args: str, **kw: Any) -> StdioTransport:
    return StdioTransport(sys.executable, [FLOOD, *args], name="flood", **kw)


def _run(fn: Any) -> Any:
    import anyio

    return anyio.run(fn)


def _gone(pid: int) -> bool:
    """Dead: no such process, or a zombie waiting for its (new) parent to reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


# -- the splitter ----------------------------------------------------------------------------
def test_lines_split_across_chunks_and_blank_lines_kept_for_the_reader() -> None:
    splitter = LineSplitter(limit=10)
    assert splitter.feed(b"ab") == []
    assert splitter.feed(b"c\nde\n\nf") == [b"abc", b"de", b""]
    assert splitter.held == 1
    assert splitter.feed(b"\n") == [b"f"] and splitter.held == 0


def test_a_line_of_exactly_the_limit_passes_and_one_byte_more_is_refused() -> None:
    assert LineSplitter(limit=4).feed(b"abcd\n") == [b"abcd"]
    with pytest.raises(Oversized):
        LineSplitter(limit=4).feed(b"abcde\n")
    splitter = LineSplitter(limit=4)
    splitter.feed(b"abc")
    with pytest.raises(Oversized):  # refused before holding the fifth byte
        splitter.feed(b"de")
    assert splitter.held == 3 and splitter.high_water == 3


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=8),
       st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=8))
def test_any_chunking_yields_the_same_lines(lines: list[bytes], cuts: list[int]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    splitter = LineSplitter(limit=12)
    out: list[bytes] = []
    pos, i = 0, 0
    while pos < len(data):
        step = cuts[i % len(cuts)]
        out += splitter.feed(data[pos:pos + step])
        pos, i = pos + step, i + 1
    assert out == lines and splitter.held == 0 and splitter.high_water <= 12


# -- real subprocesses -----------------------------------------------------------------------
def test_an_endless_line_ends_the_connection_with_oversized_and_bounded_memory() -> None:
    transport = _transport("raw-flood", grace_s=0.2, kill_after_s=0.5)

    async def main() -> None:
        async with transport as (read, _write):
            async for _item in read:
                pytest.fail("nothing complete was ever sent")

    with pytest.raises(McpConnectionError) as info:
        _run(main)
    assert info.value.kind == "oversized" and "8 MiB" in str(info.value)
    assert FLOOD not in str(info.value) and sys.executable not in str(info.value)
    splitter = transport.splitter
    assert MAX_MESSAGE_BYTES - CHUNK_BYTES < splitter.high_water <= MAX_MESSAGE_BYTES
    assert transport.pid is not None and _gone(transport.pid)


@pytest.mark.slow
def test_many_small_lines_quickly_past_8_mib_in_all_keep_working() -> None:
    count = 60_000  # about 12 MiB in all, written at once

    async def main() -> list[Any]:
        items = []
        # the memory bound is the subject: the notification bucket is off
        async with _transport("raw-lines", str(count),
                              notification_rate=float("inf")) as (read, _write):
            async for item in read:
                items.append(item)
                if len(items) == count:
                    break
        return items

    items = _run(main)
    assert len(items) == count
    assert all(type(i.message).__name__ == "JSONRPCNotification" for i in items[::997])
    assert items[-1].message.method == "notifications/message"


@pytest.mark.slow
def test_by_default_a_burst_of_notifications_is_cut_to_the_bucket() -> None:
    from lemon_core.mcp.client.flood import BURST

    async def main() -> tuple[list[Any], int]:
        import anyio

        items: list[Any] = []
        transport = _transport("raw-lines", "5000")
        async with transport as (read, _write):
            with anyio.move_on_after(4):
                async for item in read:
                    items.append(item)
        return items, transport.bucket.dropped

    items, dropped = _run(main)
    assert BURST <= len(items) < 1000 and len(items) + dropped == 5000


def test_a_malformed_line_is_an_exception_on_the_stream_not_a_crash() -> None:
    async def main() -> list[Any]:
        async with _transport("raw-malformed") as (read, _write):
            return [await read.receive(), await read.receive()]

    bad, good = _run(main)
    assert isinstance(bad, ValueError)
    assert good.message.method == "notifications/message"  # the blank line was skipped


def test_the_environment_is_the_sdk_default_plus_the_entry_and_the_cwd_is_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEMON_STDIO_NOT_INHERITED", "1")
    script = ("import json, os; print(json.dumps({'jsonrpc': '2.0', 'method': 'x', 'params': "
              "{'env': sorted(os.environ), 'cwd': os.getcwd()}}), flush=True); input()")

    async def main() -> Any:
        transport = StdioTransport(sys.executable, ["-c", script], env={"API_KEY": "k"},
                                   cwd=str(tmp_path))
        async with transport as (read, _write):
            return (await read.receive()).message.params

    from mcp.client.stdio import get_default_environment

    params = _run(main)
    assert set(params["env"]) - {"LC_CTYPE"} == {*get_default_environment(), "API_KEY"}
    assert Path(params["cwd"]).resolve() == tmp_path.resolve()


def test_a_polite_server_exits_when_stdin_closes() -> None:
    transport = _transport("polite", grace_s=30.0)

    async def main() -> None:
        async with transport:
            pass

    started = time.monotonic()
    _run(main)
    assert time.monotonic() - started < 10 and _gone(transport.pid or 0)


def test_a_server_ignoring_sigterm_and_its_child_are_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    transport = _transport("stubborn", str(pidfile), grace_s=0.2, kill_after_s=0.3)

    async def main() -> None:
        import anyio

        async with transport:
            while not pidfile.exists() or not pidfile.read_text().endswith("\n"):
                await anyio.sleep(0.05)
            await anyio.sleep(0.2)  # the SIGTERM handlers are in place

    _run(main)
    server, child = (int(p) for p in pidfile.read_text().split())
    assert server == transport.pid
    deadline = time.monotonic() + 10
    while not (_gone(server) and _gone(child)):
        assert time.monotonic() < deadline, "a process outlived the transport"
        time.sleep(0.05)


@pytest.mark.slow
def test_lemon_mcp_test_reports_a_flooding_server_as_oversized(tmp_path: Path) -> None:
    server = McpServer(name="flood", transport="stdio", source=ServerSource("lemon", "project"),
                       command=sys.executable, args=(FLOOD, "raw-flood"),
                       env={"API_KEY": "s3cr3t-flood"}, timeout_ms=60_000,
                       ready_timeout_ms=60_000)
    with pytest.raises(McpConnectionError) as info:
        probe(server, LemonContext.from_environment(cwd=tmp_path))
    assert info.value.kind == "oversized"
    assert "s3cr3t-flood" not in str(info.value) and FLOOD not in str(info.value)
    assert json.dumps(str(info.value))  # one plain line
    assert os.linesep not in str(info.value)
