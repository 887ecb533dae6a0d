"""A stdio MCP server that floods its client with notifications while idle:
``python notify_server.py``.

- ``flood(kind, seconds, rate)``: starts a thread that writes ``kind`` notifications
  (``message``: log messages of 1 KiB, ``progress``, ``list_changed``: tools/list_changed)
  straight to the wire for ``seconds`` (``rate`` a second; 0: as fast as it can), and answers
  ``started`` at once; ``flooding()`` answers ``running`` or ``done N`` (lines written);
- ``echo(text)``: says it back (a request answered in the middle of a flood).
"""

import json
import os
import threading
import time
import warnings

from mcp.server.mcpserver import MCPServer

warnings.simplefilter("ignore")
WIRE = os.dup(1)  # the SDK's stdio server moves the wire off fd 1; this is still the pipe
server = MCPServer("notify", version="1.0")
state = {"written": 0, "running": False}
LINES = {
    "message": {"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "logger": "flood", "data": "m" * 1024}},
    "progress": {"jsonrpc": "2.0", "method": "notifications/progress",
                 "params": {"progressToken": "tok", "progress": 1, "total": 10}},
    "list_changed": {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
}


def _flood(kind: str, seconds: float, rate: float) -> None:
    line = (json.dumps(LINES[kind]) + "\n").encode()  # under PIPE_BUF: written whole
    end = time.monotonic() + seconds
    gap = 1.0 / rate if rate else 0.0
    nxt = time.monotonic()
    while time.monotonic() < end:
        os.write(WIRE, line)
        state["written"] += 1
        if gap:
            nxt += gap
            delay = nxt - time.monotonic()
            if delay > 0:
                time.sleep(delay)
    state["running"] = False


@server.tool()
def flood(kind: str, seconds: float, rate: float = 0) -> str:
    """Flood the client with notifications for a while, from a thread."""
    state["running"] = True
    threading.Thread(target=_flood, args=(kind, seconds, rate), daemon=True).start()
    return "started"


@server.tool()
def flooding() -> str:
    """Whether the flood still runs."""
    return "running" if state["running"] else f"done {state['written']}"


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


server.run("stdio")
