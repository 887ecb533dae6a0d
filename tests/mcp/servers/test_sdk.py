"""The SDK import of the stdio servers: only what a low-level server needs, the rest on demand."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration  # starts processes or loopback servers

pytest.importorskip("mcp")

_PROBE = """
import sys
from lemon_core.mcp.servers.sdk import require_server_sdk
require_server_sdk()
print("client", "mcp.client" in sys.modules, "mcpserver", "mcp.server.mcpserver" in sys.modules)
from mcp.server.lowlevel import Server
from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
import mcp
print("later", Client.__module__, MCPServer.__module__, mcp.types.Tool.__name__,
      mcp.server.Server is Server, "__getattr__" in vars(mcp))
"""


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_server_does_not_import_the_client_but_it_still_imports_later() -> None:
    lines = _run(_PROBE).splitlines()
    assert lines[0] == "client False mcpserver False"
    assert lines[1] == "later mcp.client.client mcp.server.mcpserver.server Tool True False"


@pytest.mark.slow
def test_an_sdk_already_imported_is_used_as_it_is() -> None:
    out = _run("import mcp, sys\nfrom lemon_core.mcp.servers.sdk import require_server_sdk\n"
               "require_server_sdk()\nprint('mcp.client' in sys.modules, "
               "'__getattr__' in vars(mcp))")
    assert out.split() == ["True", "False"]
