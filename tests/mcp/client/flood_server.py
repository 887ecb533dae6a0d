"""Servers for the stdio transport's tests: ``python flood_server.py MODE [ARG]``.

- ``raw-flood``: writes 64 KiB of ``x`` to stdout forever, never a newline (not MCP);
- ``raw-lines N``: writes N small valid JSON-RPC notifications at once (several MiB in all),
  then waits for stdin to close;
- ``raw-malformed``: writes a line that is not JSON-RPC, then a valid notification, then waits;
- ``polite``: reads stdin until it closes, then exits;
- ``stubborn PIDFILE``: ignores SIGTERM, starts a child that ignores it too, writes both pids
  to PIDFILE, never reads stdin and never exits by itself;
- ``mcp``: an SDK server with the tools ``flood`` (writes one 9 MiB line to stdout),
  ``chatty`` (``count`` log notifications of 2 KiB each, then ``done``), ``big`` (a text
  result of ``size`` characters) and ``echo``.
"""

import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
NOTE = {"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "y" * 150}}


WIRE = os.dup(1)  # the SDK's stdio server moves the wire off fd 1; this is still the pipe


def _write_all(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(WIRE, view):]


def _wait_stdin() -> None:
    while sys.stdin.buffer.read(65536):
        pass


if mode == "raw-flood":
    chunk = b"x" * 65536
    while True:
        _write_all(chunk)
elif mode == "raw-lines":
    line = (json.dumps(NOTE) + "\n").encode()
    _write_all(line * int(sys.argv[2]))
    _wait_stdin()
elif mode == "raw-malformed":
    _write_all(b"this is not json\n\n" + (json.dumps(NOTE) + "\n").encode())
    _wait_stdin()
elif mode == "polite":
    _wait_stdin()
elif mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", code])
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(f"{os.getpid()} {child.pid}\n")
    while True:
        time.sleep(1)
else:
    from mcp.server.mcpserver import Context, MCPServer

    server = MCPServer("flood", version="1.0")

    @server.tool()
    def flood() -> str:
        """Write one 9 MiB line to stdout."""
        _write_all(b"z" * (9 * 1024 * 1024) + b"\n")
        return "flooded"

    @server.tool()
    async def chatty(count: int, ctx: Context) -> str:
        """Send ``count`` log notifications, then answer."""
        for i in range(count):
            await ctx.info(f"{i} " + "c" * 2048)
        return "done"

    @server.tool()
    def big(size: int) -> str:
        """A text result of ``size`` characters."""
        return "b" * size

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    server.run("stdio")
