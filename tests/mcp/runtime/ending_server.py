"""An SDK stdio MCP server whose calls end badly: ``python ending_server.py``.

Tools: ``big`` (a text result of ``size`` characters: 50 MB is far over lemon's 8 MiB stdio
limit), ``exit`` (the process exits with ``code`` mid-call, answering nothing), ``kill`` (the
process kills itself with SIGKILL mid-call) and ``echo``.
"""

import os
import signal

from mcp.server.mcpserver import MCPServer

server = MCPServer("ending", version="1.0")


@server.tool()
def big(size: int) -> str:
    """A text result of ``size`` characters."""
    return "b" * size


@server.tool()
def exit(code: int) -> str:  # the tool is named exit
    """Exit with ``code`` at once, answering nothing."""
    os._exit(code)


@server.tool()
def kill() -> str:
    """Kill this process with SIGKILL, answering nothing."""
    os.kill(os.getpid(), signal.SIGKILL)
    return "unreachable"


@server.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text


server.run("stdio")
