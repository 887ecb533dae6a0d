"""One process of the concurrent-refresh test: ``python refresher.py SPEC_JSON GO_FILE``.

SPEC_JSON holds the entry (as in a lemon file), the context's cwd, home and environment. The
process prepares everything, prints ``ready``, waits for GO_FILE to exist (so that all of them
start together), then runs ``lemon mcp test``'s probe and prints one JSON line: the tool names,
or the error's kind and message.
"""

import json
import sys
import time
from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.mcp.client.connection import probe
from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.schema import parse_entry
from lemon_core.models import ServerSource

spec, go = json.loads(sys.argv[1]), Path(sys.argv[2])
server = parse_entry(spec["entry"], label="servers[0]",
                     source=ServerSource("lemon", "project", "/p/.lemon/mcp.json"))
ctx = LemonContext(cwd=Path(spec["cwd"]), home=Path(spec["home"]), env=spec["env"],
                   platform="linux")
import mcp.client.auth  # noqa: E402,F401  (imported before the start, not during it)

print("ready", flush=True)
while not go.exists():
    time.sleep(0.01)
try:
    result = probe(server, ctx)
    print(json.dumps({"tools": [t.name for t in result.tools]}), flush=True)
except McpConnectionError as exc:
    print(json.dumps({"kind": exc.kind, "message": str(exc)}), flush=True)
