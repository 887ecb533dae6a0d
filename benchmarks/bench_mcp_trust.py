"""What the MCP trust check costs: ``python benchmarks/bench_mcp_trust.py [--servers N]
[--rounds N]``.

1. The check alone: a trust store holding records for ``--check-servers`` (50) servers of one
   project; :func:`lemon_core.mcp.trust.policy.untrusted` over all of them, first with a fresh
   :class:`StoreTrust` (reads and parses the store) and then warm (one ``stat`` per server).
2. ``lemon mcp tools`` as a library call: a fresh :class:`McpHost` in a project whose
   ``.lemon/mcp.json`` names N (5) trusted tiny stdio servers, ``host.tools()`` timed from
   construction to the listed tools, ``--rounds`` times, alternately with the default policy
   (the store) and with a policy that trusts everything without looking (what the code did
   before trust existed). On a tree without :mod:`lemon_core.mcp.trust` (main before issue
   17) only the second kind runs, through the old host.

Figures, not tests. Nothing leaves the machine (stdio only).
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

async def main():
    server = Server("bench", on_list_tools=list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())

anyio.run(main)
'''


def _ctx(project: Path, agent: Path):
    from lemon_core.context import LemonContext

    return LemonContext(cwd=project, home=agent, platform="linux",
                        env={"LEMON_AGENT_DIR": str(agent), "HOME": str(agent)})


def _has_trust() -> bool:
    try:
        import lemon_core.mcp.trust.policy  # noqa: F401
    except ImportError:
        return False
    return True


def check_alone(root: Path, count: int) -> None:
    from lemon_core.mcp.trust.policy import StoreTrust, untrusted
    from lemon_core.mcp.trust.store import trust_servers
    from lemon_core.models import McpServer, ServerSource

    project, agent = root / "check", root / "agent-check"
    project.mkdir()
    ctx = _ctx(project, agent)
    src = ServerSource("claude", "project", str(project / ".mcp.json"))
    servers = [McpServer(f"s{i}", "stdio", src, command="npx", args=("-y", f"pkg-{i}"),
                         env={"TOKEN": f"value-{i}"}) for i in range(count)]
    trust_servers(ctx, servers)
    cold, warm = [], []
    for _ in range(50):
        policy = StoreTrust(ctx)
        t0 = time.perf_counter()
        left = untrusted(servers, project, policy)
        t1 = time.perf_counter()
        untrusted(servers, project, policy)
        t2 = time.perf_counter()
        assert left == []
        cold.append(t1 - t0)
        warm.append(t2 - t1)
    size = (agent / "mcp-trust.json").stat().st_size
    print(f"trust check alone, {count} servers (store {size} bytes), median of 50:")
    print(f"  fresh policy (reads the store): {statistics.median(cold) * 1e3:.3f} ms "
          f"({statistics.median(cold) / count * 1e6:.1f} us per server)")
    print(f"  warm policy (stat only):        {statistics.median(warm) * 1e3:.3f} ms "
          f"({statistics.median(warm) / count * 1e6:.1f} us per server)")


def tools_call(root: Path, count: int, rounds: int) -> None:
    from lemon_core.mcp.runtime.host import McpHost

    script = root / "server.py"
    script.write_text(SERVER)
    project, agent = root / "tools", root / "agent-tools"
    (project / ".lemon").mkdir(parents=True)
    servers = [{"name": f"b{i}", "type": "stdio", "command": sys.executable,
                "args": [str(script)], "timeout_ms": 60_000, "ready_timeout_ms": 60_000}
               for i in range(count)]
    (project / ".lemon" / "mcp.json").write_text(json.dumps({"servers": servers}))
    ctx = _ctx(project, agent)
    modes: dict[str, dict] = {"no check": {}}
    if _has_trust():
        from lemon_core.mcp.config import read_file
        from lemon_core.mcp.trust.store import trust_servers

        trust_servers(ctx, read_file(ctx, "project").servers)
        modes = {"no check (as before)": {"trust": lambda project, server: True},
                 "trust store (default)": {}}
    times: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(rounds):
        for name, options in modes.items():
            t0 = time.perf_counter()
            with McpHost(ctx, **options) as host:
                found = host.tools()
            times[name].append(time.perf_counter() - t0)
            assert len(found) == count, (name, len(found))
    print(f"McpHost(ctx).tools() with {count} trusted stdio servers, {rounds} rounds each "
          "(alternately):")
    for name, values in times.items():
        print(f"  {name:24} median {statistics.median(values) * 1e3:7.1f} ms, "
              f"min {min(values) * 1e3:7.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--check-servers", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lemon-trust-bench-") as tmp:
        root = Path(tmp)
        if _has_trust():
            check_alone(root, args.check_servers)
        else:
            print("this tree has no lemon_core.mcp.trust: only the tools call is measured")
        tools_call(root, args.servers, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
