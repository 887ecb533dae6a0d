"""Skill discovery: lemon's figures beside the floors, measured on one corpus in one run.

``python benchmarks/bench_discovery.py [--skills N] [--repeat R] [--corpus DIR] [--check]``

Builds a corpus of N skills (default 10,000; see ``corpus.py``) in a temporary folder, or uses
``--corpus DIR`` (made by ``corpus.py``), measures the floors (``floors.py``) and lemon
(``lemon_figures.py``), and prints one table: each figure is the median of ``--repeat`` runs,
on a warm OS cache (nothing is dropped). Targets, from issue 2:

* (a) cold library scan <= 1.5 x (walk + head-read + parse floors)
* (b) in-process list after a change-free identity check <= 1.5 x the stat-walk floor
* (c) a second ``lemon skill list --json`` on an unchanged tree <= 40% of the first
* (d) ``lemon --help`` <= 150 ms

These are figures, not tests: the exit status is 0 unless ``--check`` is given, then 1 when a
target is missed or could not be measured.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus as corpus_module
import floors
import lemon_figures

#: Every row of the table, in order (tests check that each is printed).
MEASURES = (
    "floor: walk",
    "floor: head-read (4 KiB)",
    "floor: parse (CSafeLoader/tomllib)",
    "floor: stat-walk",
    "(a) cold library scan",
    "    cold list_skills (scan + status)",
    "(b) list after identity check",
    "    identity check alone",
    "(c) cli skill list --json, first",
    "(c) cli skill list --json, second",
    "(d) lemon --help",
    "    python -c pass",
)
HELP_TARGET_MS = 150.0


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000, help="corpus size (default 10000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--layout", choices=corpus_module.LAYOUTS, default="flat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", type=Path,
                        help="use (or generate and keep) the corpus in this folder")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser.parse_args(argv)


def _measure_floors(roots: list[str], repeat: int) -> tuple[dict[str, float], dict[str, Any]]:
    walked = floors.walk_floor(roots)  # warm-up: the OS cache
    floors.head_read_floor(walked.skill_files)
    walk_ms, walked = floors.timed(lambda: floors.walk_floor(roots), repeat)
    head_ms, heads = floors.timed(lambda: floors.head_read_floor(walked.skill_files), repeat)
    parse_ms, (loaded, failed) = floors.timed(lambda: floors.parse_floor(heads), repeat)
    targets = floors.stat_targets(roots, walked)
    stat_ms, _ = floors.timed(lambda: floors.stat_walk_floor(targets), repeat)
    notes = {"skill_files": len(walked.skill_files), "folders": len(walked.folders),
             "stat_targets": len(targets), "parsed": loaded, "parse_failures": failed}
    return {"walk": walk_ms, "head": head_ms, "parse": parse_ms, "stat": stat_ms}, notes


def _guard(func: Callable[[], dict[str, Any]], problems: list[str]) -> dict[str, Any]:
    try:
        return func()
    except Exception as exc:  # noqa: BLE001 - report and carry on: figures, not tests
        problems.append(f"{type(exc).__name__}: {exc}")
        return {}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.1f}"


def _rows(f: dict[str, float], lib: dict[str, Any], cli: dict[str, Any]
          ) -> list[tuple[str, float | None, str, bool | None]]:
    """(measure, value, target text, passed or None for information)."""
    scan_floor = f["walk"] + f["head"] + f["parse"]
    first = cli.get("cli list first")

    def target(value: float | None, limit: float | None, text: str) -> tuple[float | None, str,
                                                                             bool | None]:
        if limit is None:
            return value, text, False
        shown = f"{text} = {limit:,.1f}" if text else f"<= {limit:,.1f}"
        return value, shown, value is not None and value <= limit

    return [
        ("floor: walk", f["walk"], "", None),
        ("floor: head-read (4 KiB)", f["head"], "", None),
        ("floor: parse (CSafeLoader/tomllib)", f["parse"], "", None),
        ("floor: stat-walk", f["stat"], "", None),
        ("(a) cold library scan",
         *target(lib.get("cold scan"), 1.5 * scan_floor, "<= 1.5 x (walk+head+parse)")),
        ("    cold list_skills (scan + status)", lib.get("cold list"), "", None),
        ("(b) list after identity check",
         *target(lib.get("warm list"), 1.5 * f["stat"], "<= 1.5 x stat-walk")),
        ("    identity check alone", lib.get("identity check"), "", None),
        ("(c) cli skill list --json, first", first, "", None),
        ("(c) cli skill list --json, second",
         *target(cli.get("cli list second"), None if first is None else 0.4 * first,
                 "<= 40% x first")),
        ("(d) lemon --help", *target(cli.get("help"), HELP_TARGET_MS, "")),
        ("    python -c pass", cli.get("python startup"), "", None),
    ]


def _print_table(rows: list[tuple[str, float | None, str, bool | None]]) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value (ms)':>10}  {'target (ms)':<34}  result")
    print("-" * (width + 58))
    for name, value, target, passed in rows:
        result = "" if passed is None else "PASS" if passed else "FAIL"
        print(f"{name:<{width}}  {_fmt(value):>10}  {target:<34}  {result}".rstrip())


def _machine() -> str:
    try:
        import yaml

        libyaml = f"PyYAML {yaml.__version__}, libyaml {'yes' if yaml.__with_libyaml__ else 'no'}"
    except ImportError:
        libyaml = "PyYAML missing"
    return (f"machine: {os.cpu_count()} cpus, {platform.machine()}, {platform.system()} "
            f"{platform.release()}; Python {platform.python_version()} "
            f"({platform.python_implementation()}); {libyaml}; warm OS cache")


def _locate(args: argparse.Namespace, work: Path) -> tuple[Path, dict[str, Any]]:
    """The corpus folder and its summary: ``--corpus`` (generated there when it is empty or
    missing, and kept), else a new one in ``work``."""
    dest = args.corpus if args.corpus is not None else work / "corpus"
    summary_file = dest / "corpus.json"
    if summary_file.exists():
        return dest, json.loads(summary_file.read_text())
    if dest.exists() and any(dest.iterdir()):  # someone else's layout: assume the defaults
        return dest, {}
    return dest, corpus_module.generate(dest, args.skills, layout=args.layout, seed=args.seed)


def run(args: argparse.Namespace, work: Path) -> bool:
    """Measure and print everything; returns True when every target is met."""
    base, summary = _locate(args, work)
    corpus = lemon_figures.Corpus(base / summary.get("project", "project"),
                                  base / summary.get("home", "home"))
    print(_machine())
    print(f"corpus: {base} — {summary.get('skills', '?')} SKILL.md files, layout "
          f"{summary.get('layout', '?')}, {summary.get('unique_keys', '?')} keys, "
          f"{len(summary.get('invalid', []))} invalid, {len(summary.get('duplicates', []))} "
          f"duplicates; median of {args.repeat} runs")
    problems: list[str] = []
    lib_cache = work / "cache-lib"
    try:
        ctx = lemon_figures.lemon_context(corpus, lib_cache)
        roots = lemon_figures.root_paths(ctx)
    except Exception as exc:  # noqa: BLE001
        problems.append(f"lemon cannot compute its roots: {exc}")
        ctx, roots = None, [str(p) for p in corpus_module.root_dirs(base)]
    floor_figures, floor_notes = _measure_floors(roots, args.repeat)
    lib = _guard(lambda: lemon_figures.library_figures(ctx, args.repeat), problems) if ctx else {}
    cli = _guard(lambda: lemon_figures.cli_figures(corpus, work, args.repeat), problems)
    if not cli:
        cli = _guard(lambda: {"help": lemon_figures.help_figure(corpus, work, args.repeat)},
                     problems)
    rows = _rows(floor_figures, lib, cli)
    print()
    _print_table(rows)
    print()
    print(f"floors: {floor_notes}")
    for notes in (lib.get("notes"), cli.get("notes")):
        if notes:
            print(f"lemon: {notes}")
    if lib.get("notes") and not lib["notes"]["check_ran"]:
        print("warning: the identity check did not run before every warm list")
    if lib.get("notes") and lib["notes"]["rebuilt"]:
        print("warning: the catalog was rebuilt during the warm lists (a racy corpus?)")
    for problem in problems:
        print(f"not measured: {problem}")
    return all(passed is not False for *_, passed in rows)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="lemon-bench-"))
    try:
        ok = run(args, work)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if args.check and not ok else 0


if __name__ == "__main__":
    raise SystemExit(main())
