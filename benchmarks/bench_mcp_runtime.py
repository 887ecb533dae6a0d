"""The tool host's discovery figures: ``python benchmarks/bench_mcp_runtime.py [--servers N]``.

Writes a tiny stdio MCP server (the SDK's low-level server, one tool) and a project whose
``.lemon/mcp.json`` names N copies of it (N = 10 by default), then measures, in one run:

* "single": each server alone through a fresh :class:`McpHost` (spawn, handshake, ``tools/list``,
  in turn); the slowest of them is the reference;
* "cold": all N through one fresh host (connected in parallel); target <= 1.5 x the slowest
  single;
* "warm": ``host.tools()`` again within the refresh interval (in process); target <= 5 ms.

Figures, not tests: exit 0 unless ``--check`` (1 when a target is missed). Nothing leaves
127.0.0.1 (stdio only).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

SERVER = '''
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="ping", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

low = Server("bench", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (read, write):
        await low.run(read, write, low.create_initialization_options())

anyio.run(main)
'''


def _project(root: Path, names: list[str], script: Path) -> Path:
    project = root / f"p-{len(names)}-{names[0]}"
    (project / ".lemon").mkdir(parents=True)
    servers = [{"name": n, "type": "stdio", "command": sys.executable, "args": [str(script), n],
                "timeout_ms": 60_000, "ready_timeout_ms": 60_000} for n in names]
    (project / ".lemon" / "mcp.json").write_text(json.dumps({"servers": servers}))
    return project


def _discover(project: Path, agent: Path) -> tuple[float, float]:
    from lemon_core.context import LemonContext
    from lemon_core.mcp.runtime.host import McpHost

    ctx = LemonContext(cwd=project, home=agent, env={"LEMON_AGENT_DIR": str(agent),
                                                     "HOME": str(agent)}, platform="linux")
    with McpHost(ctx) as host:
        started = time.perf_counter()
        tools = host.tools()
        cold = time.perf_counter() - started
        assert tools, "no tools discovered"
        warm = []
        for _ in range(200):
            t0 = time.perf_counter()
            host.tools()
            warm.append(time.perf_counter() - t0)
    return cold, statistics.median(warm)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=10)
    parser.add_argument("--check", action="store_true")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script = root / "server.py"
        script.write_text(SERVER)
        agent = root / "agent"
        agent.mkdir()
        names = [f"s{i}" for i in range(opts.servers)]
        singles = [_discover(_project(root, [n], script), agent)[0] for n in names]
        cold, warm = _discover(_project(root, names, script), agent)
    slowest = max(singles)
    print(f"servers: {opts.servers} (stdio, one tool each)")
    print(f"single discovery: median {statistics.median(singles) * 1000:.0f} ms, "
          f"slowest {slowest * 1000:.0f} ms")
    print(f"cold discovery of all {opts.servers}: {cold * 1000:.0f} ms "
          f"= {cold / slowest:.2f} x the slowest single (target <= 1.5 x)")
    print(f"warm inventory: p50 {warm * 1000:.3f} ms (target <= 5 ms)")
    missed = cold > 1.5 * slowest or warm > 0.005
    return 1 if opts.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
