"""The audit: speed on a typical skill, rates on real public skills, quality on our corpus.

``python benchmarks/bench_audit.py [--typical] [--real] [--labelled] [--repeat R]
[--corpus DIR] [--show-rules N] [--bundles DIR] [--eval dev|held] [--eval-dir DIR]
[--lemon CHECKOUT]`` (no section flag: (a), (b) and (c))

(a) ``--typical``: a typical skill (20 files, 200 KB: SKILL.md, reference pages with fenced
    examples, Python and shell scripts, JSON, YAML) audited by every built-in auditor through
    ``audit_folder``; median and p95 of R runs without the verdict cache, and with it warm.
    Target <= 20 ms.
(b) ``--real``: every ``SKILL.md`` of ``../shared/corpus`` (3,760 files of 18 public
    repositories; ``--corpus DIR``) audited as a one-file bundle; total time (target <= 10 s),
    warn and block rates per repository with the rules that fired, and every block on the
    curated vendor repositories (anthropics, openai, vercel-labs) with its findings.
(d) ``--bundles DIR`` (off by default): whole skill folders, every folder holding a
    ``SKILL.md`` under ``DIR/<owner>__<repo>/`` (for instance the vendor repositories checked
    out at the corpus's commits), audited as the installer would; rates per repository and
    every warn and block with its findings.
(c) ``--labelled``: the confusion matrix over ``tests/fixtures/audit_corpus`` (targets: every
    malicious sample flagged, >= 95% blocked, no benign blocked, <= 10% of benign warned).
(e) ``--eval dev|held`` (repeatable) or ``--eval-dir DIR``: the evaluation corpus of issue 19
    §4 (``tests/fixtures/audit_eval``, written from public threat reports and split before any
    rule was written): block recall, warned, clean passes (critical misses, each named), benign
    blocked and warned (each named), per category, and the time per skill. ``--lemon X``
    (repeatable) judges the same corpus with another lemon as well: X is a checkout holding
    its own ``.venv`` (``python -m venv X/.venv && X/.venv/bin/pip install -e X``) or a Python
    interpreter whose ``lemon_core`` is that lemon. ``--eval-json FILE`` also writes the
    figures and every verdict as JSON. ``--eval`` alone skips (a), (b), (c).

Figures, not tests: nothing is asserted; the exit status is 0.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.audit.corpus_eval, for (c)

VENDORS = ("anthropics__", "openai__", "vercel-labs__")

_PROSE = (
    ("Use this skill when the user asks to prepare a release, update the changelog or check "
    "that every package builds. Read the reference pages first; they describe each step."),
    ("Run the test suite before tagging. If a test fails, stop and report the failure with the "
    "command that was run and its output, then ask the user how to proceed."),
    ("The configuration lives in `pyproject.toml`. See https://docs.python.org/3/library/"
    "tomllib.html for the format, and keep the version field in step with the tag."),
    ("- Collect the merged pull requests since the last tag.\n- Group them by label.\n"
    "- Write one line per change, in the imperative mood."),
    ("| step | command | notes |\n|---|---|---|\n| build | `python -m build` | wheel and sdist |"
    "\n| check | `twine check dist/*` | metadata |"),
)
_FENCE = "```bash\npython -m pip install --upgrade build twine\npython -m build\n```\n"
_PY = '''"""Helpers for the release skill: read the changelog and bump versions."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

VERSION = re.compile(r'^version = "([^"]+)"$', re.M)


def current_version(pyproject: Path) -> str:
    match = VERSION.search(pyproject.read_text(encoding="utf-8"))
    if match is None:
        raise SystemExit("no version in pyproject.toml")
    return match.group(1)


def bump(version: str, part: str = "patch") -> str:
    major, minor, patch = (int(x) for x in version.split("."))
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def entries(changelog: Path) -> list[dict[str, str]]:
    out = []
    for line in changelog.read_text(encoding="utf-8").splitlines():
        if line.startswith("- "):
            out.append({"text": line[2:].strip()})
    return out


if __name__ == "__main__":
    print(json.dumps(entries(Path(sys.argv[1])), indent=2))
'''
_SH = """#!/usr/bin/env bash
# Build and check the distribution files.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m build
python -m twine check dist/*
echo "built: $(ls dist)"
"""


def _fill(parts: list[str], size: int) -> str:
    out: list[str] = []
    total = 0
    i = 0
    while total < size:
        piece = parts[i % len(parts)]
        out.append(piece)
        total += len(piece) + 2
        i += 1
    return "\n\n".join(out)[:size] + "\n"


def write_typical(folder: Path) -> int:
    """A 20-file, ~200 KB skill; returns its size in bytes."""
    prose = [*_PROSE, _FENCE]
    files: dict[str, str] = {
        "SKILL.md": "---\nname: release-helper\ndescription: Use when preparing a release: "
                    "changelog, version bump, build and checks.\n---\n# Release helper\n\n"
                    + _fill(prose, 6_000),
        "templates/CHANGELOG.md": _fill(prose, 10_000),
        "config.yaml": "".join(f"step_{i}:\n  run: python -m build\n  timeout: 60\n"
                               for i in range(110)),
        "LICENSE": _fill([("Permission is hereby granted, free of charge, to any person "
                          "obtaining a copy of this software.")], 5_000),
        "assets/data.json": "[" + ",".join(f'{{"id": {i}, "name": "package-{i}", '
                                           f'"version": "1.{i}.0"}}' for i in range(600))
                            + "]\n",
    }
    for i in range(8):
        files[f"references/step-{i}.md"] = f"# Step {i}\n\n" + _fill(prose, 12_000)
    for i in range(5):
        files[f"scripts/tool_{i}.py"] = (_PY * 7)[:8_000]
    for i in range(2):
        files[f"scripts/build_{i}.sh"] = (_SH * 20)[:4_000]
    total = 0
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".sh"):
            os.chmod(path, 0o755)
        total += len(text.encode())
    return total


def _auditors() -> list[Any]:
    from lemon_core.audit.policy_doc import builtin_auditors

    return builtin_auditors()


def bench_typical(repeat: int) -> None:
    from lemon_core.audit.host import audit_folder
    from lemon_core.auditor_kit import clear_caches
    from lemon_core.context import LemonContext

    auditors = _auditors()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "release-helper"
        size = write_typical(folder)
        count = sum(1 for p in folder.rglob("*") if p.is_file())
        clear_caches()
        start = time.perf_counter()
        report = audit_folder(folder, auditors=auditors)
        first = time.perf_counter() - start
        cold, cold_cpu = [], []
        for _ in range(repeat):
            clear_caches()
            start, cpu = time.perf_counter(), time.process_time()
            audit_folder(folder, auditors=auditors)
            cold.append(time.perf_counter() - start)
            cold_cpu.append(time.process_time() - cpu)
        times, cpu_times = [], []
        for _ in range(repeat):
            start, cpu = time.perf_counter(), time.process_time()
            audit_folder(folder, auditors=auditors)
            times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu)
        ctx = LemonContext.from_environment().evolve(
            env={**os.environ, "LEMON_CACHE_DIR": str(Path(tmp) / "cache")})
        audit_folder(folder, ctx, auditors=auditors)
        warm = []
        for _ in range(repeat):
            start = time.perf_counter()
            audit_folder(folder, ctx, auditors=auditors)
            warm.append(time.perf_counter() - start)
    times.sort()
    cold.sort()
    print(f"(a) typical skill: {count} files, {size / 1000:.0f} KB, auditors "
          f"{', '.join(a.name for a in auditors)}")
    print(f"    verdict {report.verdict} ({', '.join(report.rules) or 'no findings'})")
    print(f"    first audit of the process: {first * 1000:.1f} ms (patterns compiled on first use)")
    print(f"    audit_folder, no verdict cache, kit caches cleared before each run (as a new "
          f"skill): median {median(cold) * 1000:.1f} ms (CPU {median(cold_cpu) * 1000:.1f} ms), "
          f"p95 {cold[int(len(cold) * 0.95) - 1] * 1000:.1f} ms (target <= 20 ms)")
    print(f"    audit_folder, no verdict cache, the same skill again: median "
          f"{median(times) * 1000:.1f} ms (CPU {median(cpu_times) * 1000:.1f} ms), "
          f"p95 {times[int(len(times) * 0.95) - 1] * 1000:.1f} ms over {repeat} runs")
    print(f"    audit_folder, verdict cache warm: median {median(warm) * 1000:.1f} ms")
    per: dict[str, float] = {}
    from lemon_core.audit.bundle import read_bundle
    from lemon_core.fsio.tree import DEFAULT_LIMITS, scan_tree

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "release-helper"
        write_typical(folder)
        start = time.perf_counter()
        for _ in range(repeat):
            scan = scan_tree(folder)
            read = read_bundle(folder, scan, DEFAULT_LIMITS, "release-helper")
        per["host (scan + read + hash)"] = (time.perf_counter() - start) / repeat
        for auditor in auditors:
            start = time.perf_counter()
            for _ in range(repeat):
                list(auditor.audit(read.bundle))
            per[auditor.name] = (time.perf_counter() - start) / repeat
    print("    mean per part: " + ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in per.items()))


def _one_file_scan(folder: Path) -> Any:
    from lemon_core.fsio.tree import TreeEntry, TreeScan

    info = os.lstat(folder / "SKILL.md")
    entry = TreeEntry("SKILL.md", "file", stat.S_IMODE(info.st_mode), info.st_size,
                      info.st_nlink)
    return TreeScan(folder, (entry,), ())


def bench_real(corpus: Path, show_rules: int) -> None:
    from lemon_core.audit.host import audit_folder

    if not corpus.is_dir():
        print(f"(b) real corpus: {corpus} not found; skipped")
        return
    auditors = _auditors()
    files = sorted(p for p in corpus.rglob("SKILL.md") if p.is_file())
    per_repo: dict[str, Counter[str]] = defaultdict(Counter)
    rules: dict[str, Counter[str]] = defaultdict(Counter)
    vendor_blocks = []
    slowest: list[tuple[float, str]] = []
    start, cpu = time.perf_counter(), time.process_time()
    for path in files:
        repo = path.relative_to(corpus).parts[0]
        t0 = time.perf_counter()
        report = audit_folder(path.parent, key=path.parent.name, scan=_one_file_scan(path.parent),
                              auditors=auditors)
        slowest.append((time.perf_counter() - t0, str(path.relative_to(corpus))))
        per_repo[repo][report.verdict] += 1
        for finding in report.findings:
            rules[repo][f"{finding.rule} ({finding.severity})"] += 1
        if report.verdict == "block" and repo.startswith(VENDORS):
            vendor_blocks.append((path.relative_to(corpus), report))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"(b) real corpus: {len(files)} SKILL.md files audited in {elapsed:.2f} s "
          f"(CPU {cpu:.2f} s; target <= 10 s), {elapsed / max(1, len(files)) * 1000:.2f} ms each")
    slowest.sort(reverse=True)
    print("    slowest: " + ", ".join(f"{p} {t * 1000:.0f} ms" for t, p in slowest[:3]))
    total: Counter[str] = Counter()
    print(f"    {'repository':45} {'files':>6} {'warn':>6} {'block':>6}  rules that fired")
    for repo in sorted(per_repo, key=lambda r: -sum(per_repo[r].values())):
        c = per_repo[repo]
        total.update(c)
        n = sum(c.values())
        fired = ", ".join(f"{r} x{k}" for r, k in rules[repo].most_common(show_rules))
        print(f"    {repo:45} {n:6} {c['warn'] / n:6.1%} {c['block'] / n:6.1%}  {fired or '-'}")
    n = sum(total.values())
    print(f"    {'all':45} {n:6} {total['warn'] / n:6.1%} {total['block'] / n:6.1%}")
    print(f"    blocks on the vendor repositories ({', '.join(v.rstrip('_') for v in VENDORS)}): "
          f"{len(vendor_blocks)}")
    for rel, report in vendor_blocks:
        print(f"      {rel}")
        for f in report.findings:
            if f.severity == "block":
                where = f":{f.line}" if f.line else ""
                print(f"        {f.rule}{where}: {f.message}")
                if f.excerpt:
                    print(f"          | {f.excerpt}")


def bench_bundles(root: Path) -> None:
    from lemon_core.audit.host import audit_folder

    auditors = _auditors()
    folders = sorted({p.parent for p in root.rglob("SKILL.md") if p.is_file()})
    per_repo: dict[str, Counter[str]] = defaultdict(Counter)
    flagged = []
    start = time.perf_counter()
    sizes = []
    for folder in folders:
        repo = folder.relative_to(root).parts[0]
        report = audit_folder(folder, auditors=auditors)
        sizes.append(sum(1 for p in folder.rglob("*") if p.is_file()))
        per_repo[repo][report.verdict] += 1
        if report.verdict != "pass":
            flagged.append((folder.relative_to(root), report))
    elapsed = time.perf_counter() - start
    print(f"(d) whole bundles: {len(folders)} skill folders ({sum(sizes)} files) under {root} "
          f"in {elapsed:.2f} s")
    for repo, c in sorted(per_repo.items()):
        n = sum(c.values())
        print(f"    {repo:45} {n:6} pass {c['pass']}, warn {c['warn']}, block {c['block']}")
    for rel, report in flagged:
        print(f"    {report.verdict.upper()} {rel}")
        for f in report.findings:
            where = f"{f.path}:{f.line}" if f.line else f"{f.path or '-'}"
            print(f"        {f.severity} {f.rule} {where}: {f.message}")
            if f.excerpt:
                print(f"          | {f.excerpt}")


def bench_labelled() -> None:
    from tests.audit import corpus_eval

    with tempfile.TemporaryDirectory() as tmp:
        root = corpus_eval.materialise(Path(tmp))
        items = corpus_eval.samples(root)
        start = time.perf_counter()
        rows = corpus_eval.score(items, _auditors())
        elapsed = time.perf_counter() - start
    m = corpus_eval.matrix(rows)
    families = Counter(s.family for s in items if s.label == "malicious")
    print(f"(c) labelled corpus: {len(items)} skills ({m.total('benign')} benign, "
          f"{m.total('malicious')} malicious: "
          + ", ".join(f"{f} {n}" for f, n in sorted(families.items()))
          + f") in {elapsed:.2f} s")
    for line in m.lines():
        print("  " + line)


_OTHER_LEMON = """
import importlib.util, json, sys
import lemon_core, lemon_plugins
spec = importlib.util.spec_from_file_location("eval_corpus", sys.argv[1])
e = sys.modules["eval_corpus"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(e)
rows = e.score(__import__("pathlib").Path(sys.argv[3]), e.samples(sys.argv[2]))
where = f"{lemon_core.__path__[0]}, {lemon_plugins.__path__[0]}"
json.dump({"lemon_core": where, "rows": e.rows_to_json(rows)}, sys.stdout)
"""


def _other_python(spec: str) -> Path:
    path = Path(spec).resolve()
    if path.is_dir():
        python = path / ".venv" / "bin" / "python"
        if not python.is_file():
            raise SystemExit(f"--lemon {spec}: no {python}; create it with "
                             f"python -m venv {path}/.venv && {path}/.venv/bin/pip install -e {path}")
        return python
    return path


def _other_rows(spec: str, half: str, root: Path) -> tuple[str, list[Any]]:
    """Score the materialised half ``root`` with another lemon, in its own interpreter (cwd
    and environment free of this checkout, so its ``lemon_core`` and auditors are its own)."""
    import json
    import subprocess

    from tests.audit import eval_corpus

    python = _other_python(spec)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")
           and not k.startswith("LEMON_")}
    done = subprocess.run([str(python), "-c", _OTHER_LEMON,
                           str(Path(eval_corpus.__file__).resolve()), half, str(root)],
                          capture_output=True, text=True, env=env, cwd=root, check=False)
    if done.returncode != 0:
        raise SystemExit(f"--lemon {spec} failed:\n{done.stderr[-2000:]}")
    data = json.loads(done.stdout)
    return data["lemon_core"], eval_corpus.rows_from_json(eval_corpus.samples(half), data["rows"])


def bench_eval(halves: list[str], others: list[str], json_out: Path | None = None) -> None:
    import json

    from tests.audit import eval_corpus

    dump: dict[str, dict[str, Any]] = {}
    for half in halves:
        items = eval_corpus.samples(half)
        with tempfile.TemporaryDirectory() as tmp:
            root = eval_corpus.materialise(half, Path(tmp) / "corpus")
            judged = [("this checkout", eval_corpus.score(root, items))]
            for spec in others:
                where, rows = _other_rows(spec, half, root)
                judged.append((f"--lemon {spec} ({where})", rows))
        cats = len({s.category for s in items})
        print(f"(e) evaluation corpus, {half}: {len(items)} skills in {cats} categories")
        for who, rows in judged:
            print(f"  judged by {who}")
            figures = eval_corpus.Figures(rows)
            for line in figures.lines():
                print("    " + line)
            dump.setdefault(half, {})[who] = {"summary": figures.summary(),
                                              "rows": eval_corpus.rows_to_json(rows)}
    if json_out is not None:
        json_out.write_text(json.dumps(dump, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--typical", action="store_true")
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--labelled", action="store_true")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--show-rules", type=int, default=6)
    parser.add_argument("--bundles", type=Path, default=None)
    parser.add_argument("--eval", action="append", default=[], choices=("dev", "held"))
    parser.add_argument("--eval-dir", action="append", default=[], type=Path)
    parser.add_argument("--lemon", action="append", default=[],
                        help="another lemon for --eval: a checkout with a .venv, or a python")
    parser.add_argument("--eval-json", type=Path, default=None,
                        help="also write the --eval figures and every verdict to this file")
    args = parser.parse_args(argv)
    halves = [*args.eval, *(str(d.resolve()) for d in args.eval_dir)]
    every = not (args.typical or args.real or args.labelled or args.bundles or halves)
    if every or args.typical:
        bench_typical(args.repeat)
    if every or args.real:
        bench_real(args.corpus, args.show_rules)
    if every or args.labelled:
        bench_labelled()
    if args.bundles is not None:
        bench_bundles(args.bundles)
    if halves:
        bench_eval(halves, args.lemon, args.eval_json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
