"""The tool host's figures: ``python benchmarks/bench_mcp_runtime.py [--servers N] [--calls N]
[--serve-only]``.

Writes a tiny stdio MCP server (the SDK's low-level server, one tool) and a project whose
``.lemon/mcp.json`` names N copies of it (N = 10 by default), then measures, in one run:

* "single": each server alone through a fresh :class:`McpHost` (spawn, handshake, ``tools/list``,
  in turn); the slowest of them is the reference;
* "cold": all N through one fresh host (connected in parallel); target <= 1.5 x the slowest
  single;
* "floor": the same N servers handshaken and listed in parallel by the SDK's client alone,
  without lemon (what "cold" cannot beat on this machine), and the servers' own CPU time;
* "warm": ``host.tools()`` again within the refresh interval (in process); target <= 5 ms;
* "serve": the same tool called N times (200 by default) through ``lemon mcp serve`` and
  directly on the server, alternately in one run, both with the SDK's client over stdio;
  p50 and p95 of each, and what the gateway adds at p50 (target <= 2 ms).
* "recovery" (``--recovery`` runs only this): a server killed (SIGKILL) while idle, 5 times:
  how long until the host's watch shows it ``reconnecting``, and until its tools are back
  (the ladder's first rung, 500 ms, included); then the CPU time the host process uses
  (``getrusage``) while N connected servers sit idle for ``--idle-s`` seconds (60), with the
  periodic refresh pushed out of the window so only the watch and the idle loop count.

Figures, not tests: exit 0 unless ``--check`` (1 when a target is missed). Nothing leaves
127.0.0.1 (stdio only).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

SERVER = '''
import os, sys
if len(sys.argv) > 2:  # where to say which process this is (the recovery figure kills it)
    open(sys.argv[2], "w").write(str(os.getpid()))
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


def _trust(project: Path, agent: Path) -> None:
    """Record the project's servers as trusted (the user's 'lemon mcp trust')."""
    from lemon_core.context import LemonContext
    from lemon_core.mcp.config import read_file
    from lemon_core.mcp.trust.store import trust_servers

    ctx = LemonContext(cwd=project, home=agent, env={"LEMON_AGENT_DIR": str(agent),
                                                     "HOME": str(agent)}, platform="linux")
    trust_servers(ctx, read_file(ctx, "project").servers)


def _discover(project: Path, agent: Path) -> tuple[float, float, float | None]:
    from lemon_core.context import LemonContext
    from lemon_core.mcp.runtime.host import McpHost

    ctx = LemonContext(cwd=project, home=agent, env={"LEMON_AGENT_DIR": str(agent),
                                                     "HOME": str(agent)}, platform="linux")
    _trust(project, agent)
    with McpHost(ctx) as host:
        started = time.perf_counter()
        tools = host.tools()
        cold = time.perf_counter() - started
        servers_cpu = _children_cpu()  # the servers are still running
        assert tools, "no tools discovered"
        warm = []
        for _ in range(200):
            t0 = time.perf_counter()
            host.tools()
            warm.append(time.perf_counter() - t0)
    return cold, statistics.median(warm), servers_cpu


async def _bare_sdk(script: Path, names: list[str]) -> float:
    """The floor under "cold": the same servers spawned, handshaken and listed in parallel by
    the SDK's own client alone (no lemon: no configuration, no host, no transport of lemon's).
    Timed until the last ``tools/list`` answered, as "cold" is; the clients close after."""
    import anyio
    from mcp import Client, StdioServerParameters

    done: list[float] = []
    release = anyio.Event()

    async def one(name: str) -> None:
        params = StdioServerParameters(command=sys.executable, args=[str(script), name])
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            assert (await client.list_tools()).tools
            done.append(time.perf_counter())
            if len(done) == len(names):
                release.set()
            await release.wait()

    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for name in names:
            tg.start_soon(one, name)
    return max(done) - started


def _children_cpu() -> float | None:
    """CPU seconds the running children of this process (the servers) have used so far, from
    ``/proc`` (None where there is none)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    me, total, tick = os.getpid(), 0, os.sysconf("SC_CLK_TCK")
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _serve_calls(project: Path, agent: Path, script: Path,
                       calls: int) -> tuple[list[float], list[float]]:
    """Call ``ping`` ``calls`` times directly and through the gateway, alternately."""
    from mcp import Client, StdioServerParameters

    env = {"LEMON_AGENT_DIR": str(agent), "HOME": str(agent), "LEMON_BUILTIN_SKILLS": "0"}
    _trust(project, agent)
    lemon = Path(sys.executable).parent / "lemon"
    direct_params = StdioServerParameters(command=sys.executable, args=[str(script), "direct"])
    serve_params = StdioServerParameters(command=str(lemon), env=env,
                                         args=["mcp", "serve", "--cwd", str(project)])
    async with Client(direct_params, mode="legacy", read_timeout_seconds=60) as direct, \
            Client(serve_params, mode="legacy", read_timeout_seconds=60) as served:
        name = (await served.list_tools()).tools[0].name  # the model-facing name
        for _ in range(20):  # warm both
            await direct.call_tool("ping", {})
            await served.call_tool(name, {})
        through, straight = [], []
        for _ in range(calls):
            t0 = time.perf_counter()
            result = await served.call_tool(name, {})
            t1 = time.perf_counter()
            await direct.call_tool("ping", {})
            t2 = time.perf_counter()
            assert result.content[0].text == "pong"
            through.append(t1 - t0)
            straight.append(t2 - t1)
    return through, straight


def _serve_figure(root: Path, agent: Path, script: Path, calls: int) -> bool:
    import anyio

    through, straight = anyio.run(_serve_calls, _project(root, ["gw"], script), agent, script,
                                  calls)
    added = statistics.median(through) - statistics.median(straight)
    print(f"tool call, {calls} calls each, alternately in one run:")
    print(f"  direct to the server:    p50 {statistics.median(straight) * 1000:.2f} ms, "
          f"p95 {_pct(straight, 0.95) * 1000:.2f} ms")
    print(f"  through lemon mcp serve: p50 {statistics.median(through) * 1000:.2f} ms, "
          f"p95 {_pct(through, 0.95) * 1000:.2f} ms")
    print(f"  the gateway adds {added * 1000:.2f} ms at p50 (target <= 2 ms)")
    return added > 0.002


def _host_ctx(project: Path, agent: Path) -> object:
    from lemon_core.context import LemonContext

    return LemonContext(cwd=project, home=agent, env={"LEMON_AGENT_DIR": str(agent),
                                                      "HOME": str(agent)}, platform="linux")


def _recovery(root: Path, agent: Path, script: Path, servers: int, idle_s: float) -> None:
    """Death to tools back, and the idle cost of watching ``servers`` connections."""
    import resource
    import signal

    from lemon_core.mcp.runtime.host import McpHost

    pid_file = root / "victim.pid"
    project = root / "p-recovery"
    (project / ".lemon").mkdir(parents=True)
    entry = {"name": "victim", "type": "stdio", "command": sys.executable,
             "args": [str(script), "victim", str(pid_file)],
             "timeout_ms": 60_000, "ready_timeout_ms": 60_000}
    (project / ".lemon" / "mcp.json").write_text(json.dumps({"servers": [entry]}))
    _trust(project, agent)
    seen, back = [], []
    with McpHost(_host_ctx(project, agent), breaker_crashes=10) as host:  # type: ignore[arg-type]
        started = time.perf_counter()
        assert host.tools(), "no tools discovered"
        first = time.perf_counter() - started
        for _ in range(5):
            time.sleep(0.5)
            os.kill(int(pid_file.read_text()), signal.SIGKILL)
            died = time.perf_counter()
            noticed = None
            while True:
                state = host.last_status()[0]
                if noticed is None and state.reconnecting:
                    noticed = time.perf_counter() - died
                if noticed is not None and state.connected and state.tools:
                    break
                time.sleep(0.002)
            seen.append(noticed)
            back.append(time.perf_counter() - died)
        restarts = host.last_status()[0].restarts
    print(f"a server killed while idle (5 times, {restarts} restarts):")
    print(f"  the watch shows it reconnecting after: median {statistics.median(seen) * 1000:.1f}"
          f" ms, max {max(seen) * 1000:.1f} ms")
    print(f"  its tools are back after: median {statistics.median(back) * 1000:.0f} ms, "
          f"max {max(back) * 1000:.0f} ms (the ladder waits 500 ms, then spawn + handshake + "
          f"tools/list; this server's first start and discovery took {first * 1000:.0f} ms)")

    names = [f"idle{i}" for i in range(servers)]
    project = _project(root, names, script)
    _trust(project, agent)
    with McpHost(_host_ctx(project, agent), refresh_s=idle_s * 10) as host:  # type: ignore[arg-type]
        assert len(host.tools()) == servers
        before, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
        time.sleep(idle_s)
        after, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall
        connected = sum(1 for s in host.last_status() if s.connected)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"idle host, {connected} servers connected and watched for {wall:.0f} s: "
          f"{cpu * 1000:.1f} ms of CPU in the host process ({cpu / wall * 100:.3f} % of a core; "
          f"{after.ru_nvcsw - before.ru_nvcsw} voluntary context switches)")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--serve-only", action="store_true",
                        help="Only the lemon mcp serve figure.")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--recovery", action="store_true",
                        help="Only the recovery figures (a killed server; the idle watch).")
    parser.add_argument("--idle-s", type=float, default=60.0)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        script = root / "server.py"
        script.write_text(SERVER)
        agent = root / "agent"
        agent.mkdir()
        if opts.recovery:
            _recovery(root, agent, script, opts.servers, opts.idle_s)
            return 0
        serve_missed = _serve_figure(root, agent, script, opts.calls)
        if opts.serve_only:
            return 1 if opts.check and serve_missed else 0
        import anyio

        names = [f"s{i}" for i in range(opts.servers)]
        singles = [_discover(_project(root, [n], script), agent)[0] for n in names]
        cold, warm, servers_cpu = _discover(_project(root, names, script), agent)
        floor = anyio.run(_bare_sdk, script, [f"f{i}" for i in names])
    slowest = max(singles)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"servers: {opts.servers} (stdio, one tool each)")
    print(f"single discovery: median {statistics.median(singles) * 1000:.0f} ms, "
          f"slowest {slowest * 1000:.0f} ms")
    print(f"cold discovery of all {opts.servers}: {cold * 1000:.0f} ms "
          f"= {cold / slowest:.2f} x the slowest single (target <= 1.5 x)")
    print(f"  floor, the SDK's client alone, all {opts.servers} in parallel: "
          f"{floor * 1000:.0f} ms = {floor / slowest:.2f} x; lemon adds "
          f"{(cold - floor) * 1000:.0f} ms")
    if servers_cpu is not None:
        print(f"  the {opts.servers} servers' own CPU until they answered: {servers_cpu:.1f} s "
              f"({servers_cpu / opts.servers * 1000:.0f} ms each); on {cores} cores that alone "
              f"is {servers_cpu / (cores or 1) * 1000:.0f} ms of wall clock")
    print(f"warm inventory: p50 {warm * 1000:.3f} ms (target <= 5 ms)")
    missed = cold > 1.5 * slowest or warm > 0.005 or serve_missed
    return 1 if opts.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
