"""Install one skill from a loopback git server, next to `git clone --depth 1` of the same
repository (issue 8 §6: target ≤ 1.5 × the clone).

The repository is built with dulwich (one skill at its root: SKILL.md, a few scripts and
references, ``--history`` earlier commits so a full clone would cost more than a shallow one)
and served by dulwich's own smart-HTTP server on 127.0.0.1 (tests/gitserver.py). Each run is
timed on its own fresh home and destination; the figures are medians of ``--repeat`` runs:

- ``lemon skill install`` — the real CLI in a new process (start-up, routing, fetch, safe-tree
  checks, audit, activation, lockfile), as a user runs it;
- ``skills.install()`` — the same library call inside this process (no start-up);
- ``source_kit.fetch_tree`` — the git fetch and checkout alone;
- ``git clone --depth 1`` — the git binary, in a new process (skipped, with a message, when no
  ``git`` is on PATH);
- the start-up floors: ``python -c pass`` and ``python -c "import lemon_core.cli"`` (what every
  ``lemon`` command costs before it does anything).

Each row also shows the median CPU time (user + system of this process and of the child it
ran; the loopback server runs in this process, so its share is in every row that fetches),
which a loaded machine inflates far less than the wall clock. ``--check`` exits 1 when the CLI install
is slower than 1.5 × the clone.

``--phases`` adds where the CLI install's CPU time goes: the same command, run by
``benchmarks/install_phases.py`` in a new process per run, with each import and pipeline step
timed (median CPU ms of ``--repeat`` runs, and its share of the process's CPU); the audit's
share (importing the auditors and running them) is summed on its own line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gitserver import Exec, GitServer, build_repo, commit

TARGET = 1.5
LEMON = str(Path(sys.executable).parent / "lemon")


def skill_files(version: int, files: int) -> dict[str, object]:
    """A plausible skill: SKILL.md, scripts and reference pages (about 4 KiB each)."""
    tree: dict[str, object] = {
        "SKILL.md": ("---\nname: bench-skill\ndescription: Use when benchmarking lemon "
                     f"installs (version {version}).\n---\n# Bench skill\n\n"
                     + "Steps to follow, one per line.\n" * 60),
    }
    for n in range(files):
        body = f"# page {n} of version {version}\n" + ("Reference text. " * 250) + "\n"
        if n % 4 == 0:
            tree[f"scripts/tool_{n}.py"] = Exec(
                f"#!/usr/bin/env python3\nprint('tool {n} v{version}')\n".encode())
        else:
            tree[f"references/page_{n}.md"] = body
    return tree


def build(path: Path, files: int, history: int) -> str:
    repo, sha = build_repo(path, skill_files(0, files))
    for version in range(1, history + 1):
        sha = commit(repo, skill_files(version, files), message=f"version {version}")
    return sha


def _cpu() -> float:
    """CPU seconds of this process and its finished children (user + system)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(run: Callable[[Path], None], scratch: Path, repeat: int) -> tuple[list[float],
                                                                             list[float]]:
    """(wall seconds, CPU seconds) of ``repeat`` runs, each in a fresh folder."""
    times, cpu = [], []
    for n in range(repeat):
        work = scratch / f"run-{time.monotonic_ns()}-{n}"
        work.mkdir()
        start, start_cpu = time.perf_counter(), _cpu()
        run(work)
        times.append(time.perf_counter() - start)
        cpu.append(_cpu() - start_cpu)
        shutil.rmtree(work, ignore_errors=True)
    return times, cpu


def python_floor(code: str) -> Callable[[Path], None]:
    def run(work: Path) -> None:
        subprocess.run([sys.executable, "-c", code], env=_env(work), cwd=work, check=True)

    return run


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
            "LEMON_CACHE_DIR": str(home / ".cache")}


def cli_install(url: str) -> Callable[[Path], None]:
    def run(work: Path) -> None:
        proc = subprocess.run([LEMON, "skill", "install", url, "--approve", "--json"],
                              env=_env(work), cwd=work, capture_output=True, text=True,
                              check=False)
        if proc.returncode != 0:
            raise SystemExit(f"lemon skill install failed: {proc.stderr.strip()}")
        json.loads(proc.stdout)

    return run


PHASES_SCRIPT = Path(__file__).resolve().with_name("install_phases.py")


def phases(url: str, scratch: Path, repeat: int) -> list[tuple[str, float, float]]:
    """(phase, median CPU ms, share of the process's CPU) of ``repeat`` CLI installs."""
    runs: list[dict[str, float]] = []
    for n in range(repeat):
        work = scratch / f"phases-{time.monotonic_ns()}-{n}"
        work.mkdir()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, str(PHASES_SCRIPT), "skill", "install", url,
                               "--approve", "--json"], env=_env(work), cwd=work,
                              capture_output=True, text=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        shutil.rmtree(work, ignore_errors=True)
        if proc.returncode != 0:
            raise SystemExit(f"lemon skill install failed: {proc.stderr.strip()}")
        run = json.loads(proc.stderr.strip().splitlines()[-1])
        total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        run["interpreter start-up and exit"] = total - sum(run.values())
        run["process total"] = total
        runs.append(run)
    names = list(dict.fromkeys(name for run in runs for name in run))
    total = median(run["process total"] for run in runs)
    rows = [(name, median(run.get(name, 0.0) for run in runs) * 1000,
             median(run.get(name, 0.0) for run in runs) / total if total else 0.0)
            for name in names]
    audit = sum(ms for name, ms, _ in rows if name in ("audit", "plugins: import auditors"))
    rows.append(("= the audit (import auditors + audit)", audit, audit / 1000 / total))
    return rows


def library_install(url: str) -> Callable[[Path], None]:
    from lemon_core.context import LemonContext
    from lemon_core.skills import install

    def run(work: Path) -> None:
        ctx = LemonContext(cwd=work, home=work, env=_env(work))
        install(url, ctx, approve=True)

    return run


def fetch_only(url: str) -> Callable[[Path], None]:
    from lemon_core.source_kit import fetch_tree

    def run(work: Path) -> None:
        dest = work / "dest"
        dest.mkdir()
        fetch_tree(url, None, dest)

    return run


def git_clone(url: str, git: str) -> Callable[[Path], None]:
    def run(work: Path) -> None:
        subprocess.run([git, "clone", "--quiet", "--depth", "1", "--", url, str(work / "c")],
                       check=True, env={**_env(work), "GIT_TERMINAL_PROMPT": "0"},
                       capture_output=True)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per figure (median)")
    parser.add_argument("--files", type=int, default=24, help="files in the skill")
    parser.add_argument("--history", type=int, default=30, help="earlier commits")
    parser.add_argument("--phases", action="store_true",
                        help="also show where the CLI install's CPU time goes, phase by phase")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when the CLI install takes over {TARGET} x the clone")
    args = parser.parse_args(argv)

    scratch = Path(tempfile.mkdtemp(prefix="lemon-bench-install-"))
    try:
        commit_id = build(scratch / "repo.git", args.files, args.history)
        with GitServer() as server:
            url = server.add("bench/bench-skill.git", server_repo(scratch / "repo.git"))
            git = shutil.which("git")
            rows: list[tuple[str, tuple[list[float], list[float]]]] = []
            if git:
                git_clone(url, git)(_fresh(scratch))  # warm the server
                rows.append(("git clone --depth 1", timed(git_clone(url, git), scratch,
                                                          args.repeat)))
            rows.append(("lemon skill install (CLI)", timed(cli_install(url), scratch,
                                                            args.repeat)))
            rows.append(("skills.install() in-process", timed(library_install(url), scratch,
                                                              args.repeat)))
            rows.append(("source_kit.fetch_tree", timed(fetch_only(url), scratch,
                                                        args.repeat)))
            rows.append(("floor: python -c pass", timed(python_floor("pass"), scratch,
                                                        args.repeat)))
            rows.append(("floor: import lemon_core.cli",
                         timed(python_floor("import lemon_core.cli"), scratch, args.repeat)))
            split = phases(url, scratch, args.repeat) if args.phases else []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"one skill ({args.files + 1} files, {args.history + 1} commits, tip "
          f"{commit_id[:12]}) from dulwich's HTTP server on 127.0.0.1; median of "
          f"{args.repeat} runs")
    base = median(rows[0][1][0]) if git else None
    for label, (times, cpu) in rows:
        figure = median(times)
        ratio = f"  {figure / base:5.2f} x clone" if base else ""
        print(f"  {label:32} {figure * 1000:8.1f} ms  (min {min(times) * 1000:6.1f}, cpu "
              f"{median(cpu) * 1000:6.1f}){ratio}")
    if split:
        print(f"where the CLI install's CPU goes (median of {args.repeat} runs):")
        for label, ms, share in split:
            print(f"  {label:40} {ms:8.1f} ms  {share * 100:5.1f} %")
    if not git:
        print("  git clone --depth 1: skipped, no git binary on PATH (no comparison)")
        return 0
    cli = median(rows[1][1][0]) / base  # type: ignore[operator]
    verdict = "meets" if cli <= TARGET else "misses"
    print(f"target: CLI install <= {TARGET} x git clone --depth 1: {cli:.2f} x ({verdict})")
    return 1 if args.check and cli > TARGET else 0


def server_repo(path: Path) -> object:
    from dulwich.repo import Repo

    return Repo(str(path))


def _fresh(scratch: Path) -> Path:
    work = scratch / f"warm-{time.monotonic_ns()}"
    work.mkdir()
    return work


if __name__ == "__main__":
    sys.exit(main())
