"""Figures for issue 7: what each attack of the hostile tree costs lemon, per command.

Builds, for every attack, a fresh tree (the ordinary skills and servers of
``tests/integration/hostile_tree.py`` plus that one attack), runs the ``lemon`` console script
in it (stdin closed, a fake home, nothing of the caller's ``LEMON_*``) and prints the wall time,
the peak RSS of that one process (``wait4``) and its exit status; a run past ``--timeout`` is
killed and reported ``timeout``. ``--combined`` adds the whole hostile tree, once per slot
variant. Only the CLI is driven, so any lemon checkout can be measured::

    python benchmarks/hostile.py                                  # the lemon next to python
    python benchmarks/hostile.py --lemon /tmp/venv-before/bin/lemon --out before.json
    python benchmarks/hostile.py --lemon CHECKOUT                 # PYTHONPATH=CHECKOUT
    python benchmarks/hostile.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.integration import hostile_cache, measured_run
from tests.integration import hostile_tree as ht

COMMANDS = {
    "skill list": ["skill", "list"],
    "skill inspect": ["skill", "inspect", "valid-alpha"],
    "skill check": ["skill", "check", "valid-alpha"],
    "skill lint": ["skill", "lint", ".agents/skills"],
    "mcp list": ["mcp", "list"],
    "mcp list --all": ["mcp", "list", "--all"],
}
#: Attacks that only MCP commands read; every other attack is measured on the skill commands
#: (``both`` ones on all).
MCP_ATTACKS = {"opencode_substitution", "imported_bad_url", "import_sparse_deep"}
BOTH_ATTACKS = {"lemon_dir_file", "home_relative", "home_missing", "home_file"}


def family(attack: str) -> set[str]:
    if attack in BOTH_ATTACKS or attack.startswith("combined"):
        return {"skill", "mcp"}
    if attack in MCP_ATTACKS or attack.startswith("project_mcp_"):
        return {"mcp"}
    if attack == "none":
        return {"skill", "mcp"}
    return {"skill"}



def measure(attack: str, base: Path, lemon: list[str], extra_env: dict[str, str],
            args: argparse.Namespace) -> list[dict[str, object]]:
    if attack.startswith("combined-"):
        tree = ht.build_hostile_tree(base, lemon, variant=attack.split("-", 1)[1])
    else:
        tree = ht.build_tree(base, [] if attack == "none" else [attack], lemon)
    tree.env.update(extra_env)
    rows = []
    wanted = family(attack)
    for label, argv in COMMANDS.items():
        if args.command and label not in args.command:
            continue
        if not args.all_commands and not args.command and label.split()[0] not in wanted:
            continue
        for as_json in (False, True) if args.json else (False,):
            hostile_cache.replant_cache(tree)
            result = measured_run.run(
                lemon, [*argv, *(["--json"] if as_json else [])], tree.project, tree.env,
                timeout=args.timeout, memory_cap=args.memory_cap_gb * 1024**3)
            row = {"attack": attack, "command": label + (" --json" if as_json else ""),
                   "status": result.status, "wall_s": round(result.wall, 2),
                   "peak_mb": round(result.peak_rss_mb)}
            rows.append(row)
            print(f"{attack:<28} {row['command']:<22} {row['wall_s']:>8.2f} "
                  f"{row['peak_mb']:>8} {row['status']}", flush=True)
    return rows


def compare(before_file: str, after_file: str, rows: bool = False) -> None:
    """A Markdown table of two ``--out`` files: per attack (slowest run, largest peak, the
    statuses seen) or, with ``rows``, per attack and command."""

    def load(name: str) -> dict[tuple[str, str], dict[str, object]]:
        return {(r["attack"], r["command"]): r for r in json.loads(Path(name).read_text())}

    before, after = load(before_file), load(after_file)
    keys = [*before, *(k for k in after if k not in before)]
    if rows:
        print("| attack | command | before s | before MB | before | after s | after MB | after |")
        print("|---|---|---:|---:|---|---:|---:|---|")
        for key in keys:
            b, a = before.get(key, {}), after.get(key, {})
            print(f"| {key[0]} | {key[1]} | {b.get('wall_s', '')} | {b.get('peak_mb', '')} | "
                  f"{b.get('status', '')} | {a.get('wall_s', '')} | {a.get('peak_mb', '')} | "
                  f"{a.get('status', '')} |")
        return

    def worst(table: dict[tuple[str, str], dict[str, object]], attack: str) -> str:
        runs = [r for (name, _), r in table.items() if name == attack]
        if not runs:
            return "| | |"
        statuses = sorted({str(r["status"]) for r in runs})
        return (f"{max(float(r['wall_s']) for r in runs):.2f} | "
                f"{max(int(r['peak_mb']) for r in runs)} | {', '.join(statuses)}")

    print("| attack | before: slowest s | peak MB | statuses | after: slowest s | peak MB "
          "| statuses |")
    print("|---|---:|---:|---|---:|---:|---|")
    for attack in dict.fromkeys(name for name, _ in keys):
        print(f"| {attack} | {worst(before, attack)} | {worst(after, attack)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lemon", help="a lemon console script, or a checkout (PYTHONPATH)")
    parser.add_argument("--attack", action="append", help="measure only these (repeat); "
                        "'none' is the clean tree, 'combined-a|b|c' the whole hostile tree")
    parser.add_argument("--skip", action="append", default=[], help="leave these out (repeat)")
    parser.add_argument("--combined", action="store_true", help="add combined-a, -b and -c")
    parser.add_argument("--command", action="append", choices=list(COMMANDS),
                        help="run only these commands (repeat)")
    parser.add_argument("--json", action="store_true", help="also run each command with --json")
    parser.add_argument("--all-commands", action="store_true",
                        help="run every command for every attack, not only those that read it")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per run (60)")
    parser.add_argument("--memory-cap-gb", type=int, default=4,
                        help="address-space limit per run, so a runaway read cannot take the "
                             "machine (4 GiB; a run that hits it ends in MemoryError)")
    parser.add_argument("--out", help="also write the rows as JSON to this file")
    parser.add_argument("--keep", help="build the trees in this folder and keep them")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                        help="print a Markdown table of two --out files (per attack) and exit")
    parser.add_argument("--rows", action="store_true",
                        help="with --compare: one line per attack and command")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare, rows=args.rows)
        return
    lemon, extra_env = measured_run.lemon_command(args.lemon)
    attacks = args.attack or ["none", *ht.ATTACKS]
    if args.combined and not args.attack:
        attacks += [f"combined-{v}" for v in ht.VARIANTS]
    attacks = [a for a in attacks if a not in args.skip]
    print(f"lemon: {' '.join(lemon)}  timeout {args.timeout:g} s  "
          f"memory cap {args.memory_cap_gb} GiB")
    print(f"{'attack':<28} {'command':<22} {'wall s':>8} {'peak MB':>8} status", flush=True)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="lemon-hostile-") as scratch:
        root = Path(args.keep) if args.keep else Path(scratch)
        for index, attack in enumerate(attacks):
            base = root / f"{index:02d}-{attack}"
            try:
                rows.extend(measure(attack, base, lemon, extra_env, args))
            finally:
                if not args.keep:
                    _chmod_back(base)
            if args.out:
                Path(args.out).write_text(json.dumps(rows, indent=1))


def _chmod_back(base: Path) -> None:
    """Make every folder removable again (the no-execute-bit attack)."""
    for parent, dirs, _files in os.walk(base):
        for name in dirs:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o755)
                except OSError:
                    pass


if __name__ == "__main__":
    main()
