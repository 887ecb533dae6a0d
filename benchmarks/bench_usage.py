"""What a skill load costs with the usage sidecar on and off.

``python benchmarks/bench_usage.py [--loads N] [--skills K] [--repeat R]`` makes a project
with K skills in a temporary folder, then times N ``read_skill`` loads through one
:class:`~lemon_core.skills.Workspace` (as ``lemon skill serve`` holds one): with the built-in
``observers.usage`` plugin counting each load in ``.lemon/skills.usage.json``, and with it
turned off (``LEMON_DISABLE_PLUGINS=observers.usage``). It prints the median per load of R runs
for both, the difference (the sidecar's cost: one lock, one read, one atomic rewrite), and the
sidecar's size at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_project(base: Path, skills: int) -> Path:
    project = base / "repo"
    (project / ".git").mkdir(parents=True)
    for n in range(skills):
        folder = project / ".agents" / "skills" / f"skill-{n:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{n:04d}\ndescription: Use when measuring load number {n}.\n"
            f"---\n# Skill {n}\n\n" + "Some instructions.\n" * 40, encoding="utf-8")
    return project


def per_load(project: Path, home: Path, loads: int, skills: int, sidecar: bool) -> float:
    from lemon_core.context import LemonContext
    from lemon_core.skills import Workspace
    from lemon_core.skills.agent import read_skill

    env = {"HOME": str(home), "LEMON_AGENT_DIR": str(home / "agent"),
           "LEMON_BUILTIN_SKILLS": "0", "PATH": os.environ.get("PATH", "")}
    if not sidecar:
        env["LEMON_DISABLE_PLUGINS"] = "observers.usage"
    ctx = LemonContext(cwd=project, home=home, env=env, platform=sys.platform)
    workspace = Workspace.open(ctx)
    read_skill("skill-0000", workspace=workspace)  # load plugins, scan the catalog
    start = time.perf_counter()
    for n in range(loads):
        read_skill(f"skill-{n % skills:04d}", workspace=workspace)
    elapsed = time.perf_counter() - start
    workspace.close()
    return elapsed / loads


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=300)
    parser.add_argument("--skills", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lemon-bench-usage-") as scratch:
        base = Path(scratch)
        home = base / "home"
        home.mkdir()
        project = make_project(base, args.skills)
        off = statistics.median(per_load(project, home, args.loads, args.skills, False)
                                for _ in range(args.repeat))
        on = statistics.median(per_load(project, home, args.loads, args.skills, True)
                               for _ in range(args.repeat))
        sidecar = project / ".lemon" / "skills.usage.json"
        size = sidecar.stat().st_size if sidecar.exists() else 0
    print(f"read_skill, {args.loads} loads over {args.skills} skills, median of {args.repeat}:")
    print(f"  sidecar off: {off * 1e3:.3f} ms per load")
    print(f"  sidecar on:  {on * 1e3:.3f} ms per load")
    print(f"  the sidecar costs {(on - off) * 1e3:.3f} ms per load "
          f"({(on / off - 1) * 100 if off else 0:.0f}%); sidecar size {size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
