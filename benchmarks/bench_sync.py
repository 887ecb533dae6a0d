"""``lemon skill sync`` of 20 skills from one repository next to one install, and ``lemon skill
outdated`` over 100 installed skills from 5 repositories (issue 8 §6).

Repositories are built with dulwich (each skill: SKILL.md and ``--files`` reference pages) and
served by dulwich's smart-HTTP server on 127.0.0.1 (tests/gitserver.py). Every figure is the
real CLI in a new process on a fresh home, median of ``--repeat`` runs:

- one install: ``lemon skill install git+URL#subdirectory=skills/s00 --approve --json``;
- sync: a home holding only the lockfile of the 20 skills (installed once with ``--all``),
  then ``lemon skill sync --approve --json``;
- outdated: a home with 100 skills installed from 5 repositories, ``lemon skill outdated
  --json``; the ref listings the server answered during the run are counted (target: 5).

``--check`` exits 1 when sync is slower than 2 × one install or outdated asks more than once
per repository.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.gitserver import GitServer, build_repo

TARGET = 2.0
LEMON = str(Path(sys.executable).parent / "lemon")


def tree(repo: int, skills: int, files: int) -> dict[str, object]:
    out: dict[str, object] = {}
    for n in range(skills):
        name = f"r{repo}s{n:02d}"
        out[f"skills/{name}/SKILL.md"] = (
            f"---\nname: {name}\ndescription: Use when benchmarking lemon sync ({name}).\n"
            f"---\n# {name}\n\n" + "A step to follow.\n" * 40)
        for page in range(files):
            out[f"skills/{name}/references/page_{page}.md"] = (
                f"# page {page}\n" + "Reference text. " * 200 + "\n")
    return out


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", ""), "HOME": str(home),
            "LEMON_CACHE_DIR": str(home / ".cache")}


def lemon(home: Path, *argv: str) -> dict:
    run = subprocess.run([LEMON, *argv], capture_output=True, text=True, env=_env(home),
                         check=False, timeout=600)
    if run.returncode not in (0, 1) or not run.stdout:
        raise SystemExit(f"lemon {' '.join(argv)} failed ({run.returncode}): {run.stderr}")
    return json.loads(run.stdout)


def fresh(scratch: Path) -> Path:
    home = scratch / f"home-{time.monotonic_ns()}"
    home.mkdir()
    return home


def timed(run, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--files", type=int, default=4, help="reference pages per skill")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="lemon-bench-sync-"))
    try:
        with GitServer() as server:
            urls = []
            for r in range(5):
                repo, _ = build_repo(scratch / f"repo{r}", tree(r, 20, args.files))
                urls.append(server.add(f"o/skills{r}.git", repo))
            # -- one install vs sync of 20 ------------------------------------------------
            one = f"git+{urls[0]}#subdirectory=skills/r0s00"
            install = timed(lambda: lemon(fresh(scratch), "skill", "install", one,
                                          "--approve", "--json"), args.repeat)
            seed = fresh(scratch)
            lemon(seed, "skill", "install", f"git+{urls[0]}", "--all", "--approve", "--json")
            lockfile = seed / ".lemon" / "agent" / "skills.lock.json"

            def sync() -> None:
                home = fresh(scratch)
                (home / ".lemon" / "agent").mkdir(parents=True)
                shutil.copy(lockfile, home / ".lemon" / "agent" / "skills.lock.json")
                done = lemon(home, "skill", "sync", "--approve", "--json")
                assert len(done["installed"]) == 20 and done["fetches"] == 1, done

            synced = timed(sync, args.repeat)
            # -- outdated over 100 skills of 5 repositories -------------------------------
            many = fresh(scratch)
            for url in urls:
                lemon(many, "skill", "install", f"git+{url}", "--all", "--approve", "--json")
            listings: list[int] = []

            def outdated() -> None:
                server.requests.clear()
                report = lemon(many, "skill", "outdated", "--json")
                assert len(report["skills"]) == 100, report
                assert {s["status"] for s in report["skills"]} == {"current"}, report
                listings.append(sum(1 for r in server.requests if "info/refs" in r[1]))

            checked = timed(outdated, args.repeat)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ratio = median(synced) / median(install)
    print(f"20 skills in one repository ({args.files + 1} files each), median of "
          f"{args.repeat}, each a new lemon process on a fresh home:")
    print(f"  lemon skill install (one skill)   {median(install) * 1000:8.1f} ms")
    print(f"  lemon skill sync (20 skills)      {median(synced) * 1000:8.1f} ms  "
          f"({ratio:.2f} x one install; target <= {TARGET} x)")
    print(f"  lemon skill outdated (100 skills, 5 repositories) "
          f"{median(checked) * 1000:8.1f} ms, ref listings per run: {sorted(set(listings))} "
          f"(target 5)")
    ok = ratio <= TARGET and set(listings) == {5}
    print("targets: " + ("met" if ok else "MISSED"))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    raise SystemExit(main())
