"""Issue 17 §6: served files swapped out from under a check.

A thread flips a skill's ``references/`` between a real folder and a link to an outside folder
(and ``b.md`` between a file and a link to an outside file) while a loop reads them through the
library functions both servers use: ``lemon skill serve`` (``skills.agent.read_skill``, the
``load_skill`` / ``read_skill`` tools and the ``skill://`` resources) and ``lazy-skills-mcp``
(``lazy_backend.read_skill_text``). It prints, for each, how many reads returned the outside
bytes, the inside bytes, or an error (a refusal, or the file missing mid-flip).

    python benchmarks/swap_race.py [--reads 3000]

Before issue 17 a few of every 3,000 reads served the outside bytes; now none may.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path


def _build(base: Path) -> tuple[Path, Path, Path]:
    project, outside = base / "project", base / "outside"
    (project / ".git").mkdir(parents=True)
    skill = project / ".agents" / "skills" / "demo"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: Use when racing.\n---\nbody\n")
    (skill / "references" / "a.md").write_text("INSIDE\n")
    (skill / "b.md").write_text("INSIDE\n")
    outside.mkdir()
    (outside / "a.md").write_text("OUTSIDE\n")
    (outside / "b.md").write_text("OUTSIDE\n")
    return project, skill, outside


def _flip_folder(skill: Path, outside: Path, stop: threading.Event) -> None:
    link, aside = skill / ".link", skill / ".aside"
    while not stop.is_set():
        os.symlink(outside, link)
        os.rename(skill / "references", aside)
        os.rename(link, skill / "references")
        time.sleep(0)
        os.rename(skill / "references", link)
        os.unlink(link)
        os.rename(aside, skill / "references")


def _flip_file(skill: Path, outside: Path, stop: threading.Event) -> None:
    while not stop.is_set():
        os.symlink(outside / "b.md", skill / ".link")
        os.replace(skill / ".link", skill / "b.md")
        time.sleep(0)
        (skill / ".real").write_text("INSIDE\n")
        os.replace(skill / ".real", skill / "b.md")


def _race(read: Callable[[], str], flip: Callable[[threading.Event], None],
          reads: int) -> dict[str, int]:
    counts = {"outside": 0, "inside": 0, "refused": 0}
    stop = threading.Event()
    thread = threading.Thread(target=flip, args=(stop,))
    thread.start()
    try:
        for _ in range(reads):
            try:
                text = read()
            except Exception:  # noqa: BLE001 - a refusal or a file missing mid-flip
                counts["refused"] += 1
                continue
            counts["outside" if "OUTSIDE" in text else "inside"] += 1
    finally:
        stop.set()
        thread.join()
    return counts


def run(reads: int) -> int:
    """Print one line per (server, swap); returns the total of outside reads."""
    base = Path(tempfile.mkdtemp(prefix="lemon-swap-race-"))
    try:
        project, skill, outside = _build(base)
        from lemon_core.context import LemonContext
        from lemon_core.mcp.servers.lazy_backend import read_skill_text
        from lemon_core.skills.agent import read_skill

        home = base / "home"
        home.mkdir()
        ctx = LemonContext(cwd=project, home=home, platform="linux",
                           env={"HOME": str(home), "LEMON_BUILTIN_SKILLS": "0",
                                "LEMON_CACHE_DIR": str(base / "cache"),
                                "PATH": os.environ.get("PATH", "")})
        total = 0
        for relative, flip, what in (("references/a.md", _flip_folder, "folder flip"),
                                     ("b.md", _flip_file, "file swap")):
            for server, read in (
                ("lemon skill serve", lambda rel=relative: read_skill(
                    "demo", ctx, view="file", file=rel).content),
                ("lazy-skills-mcp", lambda rel=relative: read_skill_text(str(skill), rel)[0]),
            ):
                counts = _race(read, lambda stop, f=flip: f(skill, outside, stop), reads)
                total += counts["outside"]
                print(f"{server:18} {what:11} reads={reads} outside={counts['outside']} "
                      f"inside={counts['inside']} refused={counts['refused']}")
        print(f"outside reads in all: {total}")
        return total
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=3000, help="reads per (server, swap)")
    args = parser.parse_args(argv)
    return 1 if run(args.reads) else 0


if __name__ == "__main__":
    raise SystemExit(main())
