"""lemon's stdio server transport (:mod:`lemon_core.mcp.servers.stdio`) in real processes: an
SDK server on it driven by the SDK's client, the bounded reading of what a client sends, the
claim of fd 0/1, and the SDK's transport where the loop cannot wait on the pipes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from lemon_core.mcp.lines import LineSplitter

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

SERVER = str(Path(__file__).parent / "loop_stdio_server.py")
LIMIT = 1024 * 1024


def _ping(ident: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": "ping"}).encode() + b"\n"


def _start(*, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE) -> Any:
    return subprocess.Popen([sys.executable, SERVER, str(LIMIT)], stdin=subprocess.PIPE,
                            stdout=stdout, stderr=stderr)


# -- the splitter's skip mode ------------------------------------------------------------------
def test_an_oversized_line_is_one_none_and_the_lines_around_it_survive() -> None:
    splitter = LineSplitter(limit=4, skip_oversized=True)
    assert splitter.feed(b"ab\nabcdefgh") == [b"ab", None]
    assert splitter.held == 0 and splitter.high_water <= 4
    assert splitter.feed(b"ijkl") == []  # still the same long line: skipped, nothing held
    assert splitter.feed(b"mn\nok\nabcde\nz") == [b"ok", None]
    assert splitter.finish() == b"z" and splitter.held == 0


def test_a_complete_oversized_line_in_one_chunk_is_skipped_too() -> None:
    splitter = LineSplitter(limit=3, skip_oversized=True)
    assert splitter.feed(b"abcd\nxy\n") == [None, b"xy"]
    assert splitter.high_water == 0


# -- real processes ----------------------------------------------------------------------------
@pytest.mark.slow
def test_the_sdk_client_lists_and_calls_and_a_print_never_reaches_the_wire(
        tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[SERVER])

    async def body() -> list[str]:
        with (tmp_path / "err").open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy",
                              read_timeout_seconds=30) as client:
                assert [t.name for t in (await client.list_tools()).tools] == ["echo"]
                return [(await client.call_tool("echo", {"text": f"t{i}"})).content[0].text
                        for i in range(50)]

    assert anyio.run(body) == [f"t{i}" for i in range(50)]
    assert "printed:t49" in (tmp_path / "err").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_oversized_message_is_dropped_unbuffered_and_the_next_one_answered() -> None:
    proc = _start()
    try:
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "'
                         + b"x" * (3 * LIMIT) + b'"}}\n')
        proc.stdin.write(b"not json\n\n" + _ping("a\u00ff"))
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": "b\xff", "method": "ping"}\n')
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        second = json.loads(proc.stdout.readline())
        proc.stdin.close()
        rest = proc.stdout.read()
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
    assert first == {"jsonrpc": "2.0", "id": "a\u00ff", "result": {}}
    assert second == {"jsonrpc": "2.0", "id": "b\ufffd", "result": {}}  # as the SDK decodes
    assert rest == b"after True True\n"  # fd 0/1 and their blocking modes restored
    assert b"longer than 1048576 bytes" in proc.stderr.read()


@pytest.mark.slow
def test_stdin_from_a_file_is_served_by_the_sdk_transport(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(_ping(7))
    with source.open("rb") as stdin:
        done = subprocess.run([sys.executable, SERVER], stdin=stdin, capture_output=True,
                              timeout=60, check=False)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[-1] == b"after False True"
    # the SDK cancels a request still in flight at the end of input: at most the answer
    assert all(json.loads(line)["id"] == 7 for line in lines[:-1])
