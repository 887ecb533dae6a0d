"""What one ``skill_manage`` write costs (issue 21 §1).

Each action is timed in this process through the library call
(:func:`lemon_core.skills.manage.manage`) on a fresh project with one agent-written skill, and
(``--mcp``) as a tool call over stdio to a real ``lemon skill serve`` through the SDK's client
(the agent's view: JSON-RPC, a worker thread, the same write). Figures are medians of
``--repeat`` runs, in milliseconds; ``--steps`` adds where a ``patch``'s time goes (each step
of the audited-write transaction, timed by a :class:`Steps` subclass).

    python benchmarks/bench_skill_manage.py --repeat 15 --steps --mcp
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SKILL = ("---\nname: lesson\ndescription: Use when the suite fails only on CI.\n---\n"
         "# Lesson\n\nRerun with the seed printed. {n}\n" + "More context.\n" * 40)


def _ctx(base: Path) -> Any:
    from lemon_core.context import LemonContext

    home, project = base / "home", base / "repo"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""),
           "LEMON_CACHE_DIR": str(base / "cache"), "LEMON_BUILTIN_SKILLS": "0"}
    return LemonContext(cwd=project, home=home, env=env, platform="linux")


def library(repeat: int, steps: bool) -> None:
    from lemon_core.install.transaction.steps import Steps
    from lemon_core.plugins import load_plugins
    from lemon_core.skills.manage import manage

    spent: dict[str, list[float]] = defaultdict(list)

    class Timed(Steps):
        pass

    for name in ("sweep", "stage", "check", "audit", "ask", "lock", "rehash", "activate",
                 "place", "record", "refresh", "notify"):
        real = getattr(Steps, name)

        def timed(self: Any, *args: Any, _real: Any = real, _name: str = name,
                  **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return _real(self, *args, **kwargs)
            finally:
                spent[_name].append(time.perf_counter() - start)

        setattr(Timed, name, timed)

    rows: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = _ctx(Path(tmp))
        plugins = load_plugins(ctx, needs=("lemon.sources", "lemon.auditors"))
        manage("create", "warm", ctx, content=SKILL.replace("lesson", "warm").format(n=0),
               plugins=plugins)
        for n in range(repeat):
            calls = [("create", {"content": SKILL.format(n=n)}),
                     ("patch", {"old": f"printed. {n}", "new": f"printed! {n}"}),
                     ("write_file", {"path": "references/ci.md", "content": f"# CI {n}\n"}),
                     ("pin", {}), ("unpin", {}), ("archive", {}), ("restore", {}),
                     ("report", {}), ("delete", {})]
            for action, kwargs in calls:
                extra = {"steps": Timed()} if steps and action == "patch" else {}
                start = time.perf_counter()
                manage(action, "lesson", ctx, plugins=plugins, **kwargs, **extra)
                rows[action].append(time.perf_counter() - start)
    print(f"library call, median of {repeat} (ms):")
    for action, times in rows.items():
        print(f"  {action:<12} {median(times) * 1000:8.1f}")
    if steps:
        print("patch, by transaction step (median ms):")
        for name, times in spent.items():
            per_call = [sum(times[i::repeat]) for i in range(repeat)] if len(times) >= repeat \
                else times
            print(f"  {name:<12} {median(per_call) * 1000:8.2f}")


def mcp(repeat: int) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    async def body(project: Path, env: dict[str, str]) -> dict[str, list[float]]:
        params = StdioServerParameters(command=str(Path(sys.executable).parent / "lemon"),
                                       args=["skill", "serve", "--cwd", str(project)], env=env)
        rows: dict[str, list[float]] = defaultdict(list)
        async with Client(params, mode="legacy", read_timeout_seconds=60) as client:
            await client.call_tool("skill_manage", {"action": "create", "key": "lesson",
                                                    "content": SKILL.format(n=0)})
            for n in range(repeat):
                for action, args in (
                        ("patch", {"old": f"printed. {n}", "new": f"printed. {n + 1}"}),
                        ("write_file", {"path": "references/ci.md", "content": f"# {n}\n"}),
                        ("pin", {}), ("unpin", {})):
                    start = time.perf_counter()
                    result = await client.call_tool("skill_manage", {"action": action,
                                                                     "key": "lesson", **args})
                    rows[action].append(time.perf_counter() - start)
                    assert not result.is_error, result.content[0].text
                start = time.perf_counter()
                await client.call_tool("load_skill", {"name": "lesson"})
                rows["load_skill"].append(time.perf_counter() - start)
        return rows

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ctx = _ctx(base)
        env = dict(ctx.env)
        rows = anyio.run(body, ctx.cwd, env)
    print(f"over MCP stdio (lemon skill serve), median of {repeat} round trips (ms):")
    for action, times in rows.items():
        print(f"  {action:<12} {median(times) * 1000:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--steps", action="store_true", help="time each transaction step")
    parser.add_argument("--mcp", action="store_true", help="also time calls over stdio")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    library(args.repeat, args.steps)
    if args.mcp:
        mcp(args.repeat)


if __name__ == "__main__":
    main()
