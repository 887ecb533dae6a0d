"""The skill servers' figures over stdio: ``lemon skill serve`` and ``lazy-skills-mcp``.

``python benchmarks/bench_mcp_server.py [--skills N] [--corpus DIR] [--queries Q] [--check]``

Builds the discovery corpus (``corpus.py``, N = 10,000 by default) or uses ``--corpus DIR``,
then, for each server, drives it through the ``mcp`` SDK's real client over stdio (a
subprocess, as an agent runs it) and prints one table. Targets, from issue 10 §6:

* server ready (spawn to ``initialize`` answered) <= 1.5 s
* ``find_skills`` p50 <= 15 ms and p95 <= 20 ms, ``load_skill`` p50 <= 5 ms (round trips)
* the ``tools/list`` response <= 16 KB whatever N

"floor: SDK import" is the wall time of a process that only imports the SDK's server modules
(what any SDK-based server imports before answering), "floor: server SDK" that of one making
the import lemon's stdio servers make (:func:`lemon_core.mcp.servers.sdk.require_server_sdk`:
not the client, not ``MCPServer``), both measured in the same run: on a busy machine read the
ready figures against them.

``lemon skill serve`` serves the corpus project (HOME = the corpus home, the persistent cache
in a temporary folder); ``lazy-skills-mcp`` is given the corpus's four roots with
``--skills-dir`` (its scan cached in the same folder). For each, "ready, cold" is its first
start (an empty cache), "ready p50" and "ready max" the later ``--starts`` starts (spawn to
``initialize`` answered), "first find p50" spawn to the first ``find_skills`` answered (the
catalog is built once the handshake is done, so this is when it is ready to serve). The queries are
pairs and triples of the corpus's words (deterministic); the loads cycle through the served
names. Figures, not tests: exit 0 unless ``--check`` (1 when a target is missed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus as corpus_module

BIN = Path(sys.executable).parent
READY_TARGET_S = 1.5
FIND_P50_MS, FIND_P95_MS, LOAD_P50_MS = 15.0, 20.0, 5.0
TOOLS_LIST_MAX_BYTES = 16 * 1024
MEASURES = ("floor: SDK import", "floor: server SDK", "ready, cold", "ready p50", "ready max",
            "first find p50", "tools/list bytes", "find_skills p50", "find_skills p95",
            "load_skill p50", "load_skill p95")


def queries(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = corpus_module._WORDS
    return [" ".join(rng.sample(words, rng.choice((1, 2, 2, 3)))) for _ in range(count)]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


async def _session(command: list[str], env: dict[str, str], cwd: str, n_queries: int,
                   measure: bool) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
    started = time.perf_counter()
    with open(os.devnull, "w") as quiet:  # noqa: ASYNC230 - the servers' warnings are no figures
        transport = stdio_client(params, errlog=quiet)
        async with Client(transport, mode="legacy", read_timeout_seconds=120,
                          cache=None) as client:
            return await _figures(client, started, n_queries, measure)


async def _figures(client: Any, started: float, n_queries: int,
                   measure: bool) -> dict[str, Any]:
    ready = time.perf_counter() - started
    out: dict[str, Any] = {"ready": ready}
    await client.call_tool("find_skills", {"query": "python testing"})
    out["first find"] = time.perf_counter() - started
    if not measure:
        return out
    listed = await client.session.list_tools()
    out["tools/list bytes"] = len(listed.model_dump_json(by_alias=True, exclude_none=True))
    finds = []
    for query in queries(n_queries):
        began = time.perf_counter()
        await client.call_tool("find_skills", {"query": query})
        finds.append((time.perf_counter() - began) * 1000)
    every = await client.call_tool("find_skills", {"query": ""})
    names = [s["name"] for s in every.structured_content["skills"]]
    loads = []
    for name in names[:: max(1, len(names) // n_queries)][:n_queries]:
        began = time.perf_counter()
        await client.call_tool("load_skill", {"name": name})
        loads.append((time.perf_counter() - began) * 1000)
    out.update({"served": len(names),
                "find_skills p50": statistics.median(finds),
                "find_skills p95": _percentile(finds, 0.95),
                "load_skill p50": statistics.median(loads),
                "load_skill p95": _percentile(loads, 0.95)})
    return out


#: What a plain SDK server imports, and what lemon's stdio servers import of it.
FLOOR_IMPORTS = {
    "floor: SDK import": "import mcp.server.lowlevel, mcp.server.stdio",
    "floor: server SDK": "from lemon_core.mcp.servers.sdk import require_server_sdk; "
                         "require_server_sdk()",
}


def sdk_import_floor(starts: int, code: str = FLOOR_IMPORTS["floor: SDK import"]) -> float:
    """Median wall time of a Python process that only imports the SDK's server modules
    (``code``): the least an SDK-based server needs before it can answer ``initialize``."""
    import subprocess

    times = []
    for _ in range(max(1, starts)):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def measure_server(command: list[str], env: dict[str, str], cwd: str, *, starts: int,
                   n_queries: int, cold_first: bool) -> dict[str, Any]:
    import anyio

    figures: dict[str, Any] = {}
    if cold_first:
        figures["ready, cold"] = anyio.run(_session, command, env, cwd, 0, False)["ready"]
    runs = [anyio.run(_session, command, env, cwd, 0, False) for _ in range(max(1, starts - 1))]
    last = anyio.run(_session, command, env, cwd, n_queries, True)
    runs.append({"ready": last.pop("ready"), "first find": last.pop("first find")})
    readies = [run["ready"] for run in runs]
    figures.update({"ready p50": statistics.median(readies), "ready max": max(readies),
                    "first find p50": statistics.median(run["first find"] for run in runs)})
    figures.update(last)
    return figures


def _targets(figures: dict[str, Any]) -> dict[str, bool]:
    return {
        "ready p50": figures["ready p50"] <= READY_TARGET_S,
        "ready max": figures["ready max"] <= READY_TARGET_S,
        "tools/list bytes": figures["tools/list bytes"] <= TOOLS_LIST_MAX_BYTES,
        "find_skills p50": figures["find_skills p50"] <= FIND_P50_MS,
        "find_skills p95": figures["find_skills p95"] <= FIND_P95_MS,
        "load_skill p50": figures["load_skill p50"] <= LOAD_P50_MS,
    }


def _fmt(name: str, value: Any) -> str:
    if value is None:
        return "-"
    if name.startswith(("ready", "floor", "first")):
        return f"{value:.2f} s"
    if name.endswith("bytes"):
        return f"{value:,} B"
    return f"{value:.2f} ms"


def print_table(results: dict[str, dict[str, Any]]) -> None:
    servers = list(results)
    print(f"{'measure':<20}" + "".join(f"{s:>26}" for s in servers))
    for name in MEASURES:
        cells = []
        for server in servers:
            figures = results[server]
            ok = _targets(figures).get(name) if name in figures else None
            mark = "" if ok is None else (" ok" if ok else " MISS")
            cells.append(f"{_fmt(name, figures.get(name)) + mark:>26}")
        print(f"{name:<20}" + "".join(cells))
    print(f"{'skills served':<20}" + "".join(f"{results[s].get('served', '-'):>26}"
                                             for s in servers))


def run(args: argparse.Namespace, work: Path) -> bool:
    if args.corpus:
        corpus = Path(args.corpus)
        if not (corpus / "corpus.json").exists():
            corpus_module.generate(corpus, args.skills)
    else:
        corpus = work / "corpus"
        corpus_module.generate(corpus, args.skills)
    home, project = corpus / "home", corpus / "project"
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""),
           "LEMON_CACHE_DIR": str(work / "cache"), "XDG_DATA_HOME": str(work / "xdg")}
    lemon = measure_server([str(BIN / "lemon"), "skill", "serve"], env, str(project),
                           starts=args.starts, n_queries=args.queries, cold_first=True)
    roots = [str(p) for p in corpus_module.root_dirs(corpus)]
    lazy_cmd = [str(BIN / "lazy-skills-mcp")] + [a for r in roots for a in ("--skills-dir", r)]
    lazy = measure_server(lazy_cmd, env, str(project), starts=args.starts,
                          n_queries=args.queries, cold_first=True)
    for name, code in FLOOR_IMPORTS.items():
        lemon[name] = lazy[name] = sdk_import_floor(args.starts, code)
    results = {"lemon skill serve": lemon, "lazy-skills-mcp": lazy}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"N = {args.skills} generated skills ({corpus}); {args.queries} queries and "
              f"loads per server; python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        print_table(results)
    return all(all(_targets(figures).values()) for figures in results.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000)
    parser.add_argument("--corpus", help="a corpus folder (made by corpus.py), reused")
    parser.add_argument("--queries", type=int, default=200, help="find and load calls each")
    parser.add_argument("--starts", type=int, default=3, help="starts per ready figure")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lemon-bench-mcp-") as tmp:
        met = run(args, Path(tmp))
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    sys.exit(main())
