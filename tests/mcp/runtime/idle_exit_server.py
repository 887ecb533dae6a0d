"""An SDK stdio MCP server that exits on its own while idle:
``python idle_exit_server.py STARTS EXITS AFTER_S CODE``.

Each start appends one line to the file STARTS. While the file holds at most EXITS lines, the
server exits with status CODE AFTER_S seconds after its handshake, with no request running;
later starts stay up. A grandchild (``sleep``) that holds stdout open is started when CODE is
negative (then the exit status is ``-CODE``; its pid is appended to ``STARTS.children``), so the
exit is seen only through the process.
Tools: ``echo``.
"""

import os
import subprocess
import sys
import threading
from pathlib import Path

from mcp.server.mcpserver import MCPServer

starts, exits, after_s, code = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), \
    int(sys.argv[4])
with starts.open("a", encoding="utf-8") as out:
    out.write(f"{os.getpid()}\n")
count = len(starts.read_text(encoding="utf-8").split())
if code < 0:
    code = -code
    child = subprocess.Popen(["sleep", "60"], stdin=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    with Path(f"{starts}.children").open("a", encoding="utf-8") as out:
        out.write(f"{child.pid}\n")
server = MCPServer("idle-exit", version="1.0")


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


def _leave() -> None:
    os._exit(code)


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if count <= exits:
    threading.Timer(after_s, _leave).start()
server.run("stdio")
