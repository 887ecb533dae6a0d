"""Relevance search: speed on the generated corpus, quality on the real one, in one run.

``python benchmarks/bench_search.py [--skills N] [--repeat R] [--corpus DIR] [--real DIR]
[--queries FILE] [--half all|dev|report] [--misses] [--check]``

Speed, on the corpus of ``corpus.py`` (N = 10,000 by default; ``--corpus DIR`` reuses one):

* ``find_relevant`` in process: the index built once (timed: "index build"), then the p50 and
  p95 of 200 queries (two or three of the corpus's words each). Target p50 <= 5 ms.
* warm ``lemon skill search QUERY --json`` beside a warm ``lemon skill list --json`` (both
  after one untimed run that fills the persistent cache). Target search <= 1.5 x list.

Quality, over ``../shared/corpus`` (``--real``; 3,760 real SKILL.md files) laid out flat in one
``.agents/skills`` root (a key used twice gets a ``--2`` suffix) and the labelled queries of
``queries.toml`` (or ``--queries queries_needs.toml --half dev|report``, a set split by the
sha256 of each query's text): hit@1, hit@3 and MRR over the first 10 (a hit is a returned key
whose name before any ``--`` suffix is a label's folder name, or that of a SKILL.md with the
very same description) for lemon's ranker, plain BM25 over name + description, and plain BM25
over name + description + the whole body. Target hit@3 >= 0.9 for lemon's. ``--misses`` prints
lemon's misses, and is refused on the report half.

Figures, not tests: exit 0 unless ``--check`` is given and a target is missed.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import median
from typing import Any

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus as corpus_module
import lemon_figures

HERE = Path(__file__).resolve().parent
DEFAULT_REAL = HERE.parent.parent / "shared" / "corpus"
DEFAULT_QUERIES = HERE / "queries.toml"
P50_TARGET_MS = 5.0
CLI_RATIO_TARGET = 1.5
HIT3_TARGET = 0.9


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=10_000, help="generated corpus size")
    parser.add_argument("--repeat", type=int, default=5, help="CLI runs per figure (median)")
    parser.add_argument("--corpus", type=Path, help="use (or generate and keep) this corpus")
    parser.add_argument("--real", type=Path, default=DEFAULT_REAL,
                        help="the real corpus for quality (default ../shared/corpus)")
    parser.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    parser.add_argument("--no-speed", action="store_true", help="quality figures only")
    parser.add_argument("--no-quality", action="store_true", help="speed figures only")
    parser.add_argument("--half", choices=("all", "dev", "report"), default="all",
                        help="the queries of one half of a split set (queries_needs.toml)")
    parser.add_argument("--misses", action="store_true",
                        help="print lemon's misses (refused on the report half)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return parser.parse_args(argv)


# -- plain BM25, the baseline -------------------------------------------------------------------

_PLAIN = re.compile(r"[^\W_]+")


def plain_words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits: no stemming, no stopwords."""
    return _PLAIN.findall(text.lower())


class PlainBM25:
    """Okapi BM25 (k1 = 1.2, b = 0.75, Lucene's non-negative idf) over one bag of words per
    document; ties by key."""

    def __init__(self, docs: Sequence[tuple[str, str]], k1: float = 1.2, b: float = 0.75):
        self.keys = [key for key, _ in docs]
        bags = [Counter(plain_words(text)) for _, text in docs]
        lengths = [sum(bag.values()) for bag in bags]
        average = (sum(lengths) / len(lengths)) if lengths else 1.0
        df: Counter[str] = Counter()
        for bag in bags:
            df.update(bag.keys())
        n = len(docs)
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, bag in enumerate(bags):
            norm = k1 * (1 - b + b * lengths[i] / (average or 1.0))
            for term, tf in bag.items():
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                self.postings.setdefault(term, []).append((i, idf * tf * (k1 + 1) / (tf + norm)))

    def search(self, query: str, limit: int) -> list[str]:
        scores: dict[int, float] = {}
        for term in set(plain_words(query)):
            for i, score in self.postings.get(term, ()):
                scores[i] = scores.get(i, 0.0) + score
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self.keys[item[0]]))
        return [self.keys[i] for i, _ in ranked[:limit]]


# -- speed --------------------------------------------------------------------------------------


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def speed_figures(base: Path, summary: dict[str, Any], work: Path, repeat: int
                  ) -> dict[str, Any]:
    from lemon_core.skills.agent import find_relevant

    corpus = lemon_figures.Corpus(base / summary.get("project", "project"),
                                  base / summary.get("home", "home"))
    ctx = lemon_figures.lemon_context(corpus, work / "cache-lib")
    rng = random.Random(7)
    queries = [" ".join(rng.sample(corpus_module._WORDS, rng.choice((2, 2, 3))))
               for _ in range(200)]
    started = time.perf_counter()
    from lemon_core.skills.workspace import Workspace

    workspace = Workspace(ctx)  # what a server holds: the catalog and the index, kept
    find_relevant(queries[0], workspace=workspace)  # builds the catalog and the index
    first_ms = (time.perf_counter() - started) * 1000
    from lemon_core.search.snapshot_index import build_index

    entries = workspace.catalog().snapshot().entries
    started = time.perf_counter()
    index = build_index(entries)
    build_ms = (time.perf_counter() - started) * 1000
    for query in queries:  # warm-up: each word's posting decoded once, as a server would
        index.search(query, 10)
    times, cpu = [], []
    for query in queries:
        started, started_cpu = time.perf_counter(), time.process_time()
        find_relevant(query, workspace=workspace)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    alone = []
    for query in queries:
        started = time.perf_counter()
        index.search(query, 10)
        alone.append((time.perf_counter() - started) * 1000)
    cli = _cli_figures(corpus, work, repeat, queries[:repeat])
    return {"first call": first_ms, "index build": build_ms, "p50": median(times),
            "p95": _percentile(times, 0.95), "index p50": median(alone),
            "cpu p50": median(cpu),
            "entries": len(entries), **cli}


def _cli_figures(corpus: Any, work: Path, repeat: int, queries: Sequence[str]
                 ) -> dict[str, float]:
    env = lemon_figures.cli_env(corpus, work / "cache-cli", work / "pycache")
    lemon = lemon_figures.lemon_command()
    cwd = ["--cwd", str(corpus.project)]
    list_argv = [*lemon, "skill", "list", "--json", *cwd]

    def timed(argv: list[str]) -> float:
        ms, done = lemon_figures._run(argv, env)
        if done.returncode != 0:
            raise lemon_figures.CliError(done.stderr.decode(errors="replace")[-500:])
        return ms

    timed(list_argv)  # fills the persistent catalog cache
    timed([*lemon, "skill", "search", queries[0], "--json", *cwd])  # and the index beside it
    lists, searches = [], []
    for i in range(max(1, repeat)):
        lists.append(timed(list_argv))
        searches.append(timed([*lemon, "skill", "search", queries[i % len(queries)], "--json",
                               *cwd]))
    return {"cli list": median(lists), "cli search": median(searches)}


# -- quality ------------------------------------------------------------------------------------


def lay_out_real(real: Path, dest: Path) -> Path:
    """Copy every SKILL.md of ``real`` to ``dest/project/.agents/skills/<key>/SKILL.md``."""
    root = dest / "project" / ".agents" / "skills"
    (dest / "project" / ".git").mkdir(parents=True)
    (dest / "home").mkdir()
    root.mkdir(parents=True)
    found = sorted(str(Path(dp, "SKILL.md").relative_to(real))
                   for dp, _, files in os.walk(real) if "SKILL.md" in files)
    used: Counter[str] = Counter()
    for relative in found:
        name = Path(relative).parent.name
        used[name] += 1
        key = name if used[name] == 1 else f"{name}--{used[name]}"
        folder = root / key
        folder.mkdir()
        shutil.copyfile(real / relative, folder / "SKILL.md")
    past = time.time() - 3600
    for path in (*root.rglob("*"), root):
        os.utime(path, (past, past))
    return dest


def _base(key: str) -> str:
    return key.split("--", 1)[0]


def hit_rates(rank: Callable[[str], list[str]], labelled: Sequence[tuple[str, frozenset[str]]]
              ) -> tuple[float, float, float, list[tuple[str, str, list[str]]]]:
    """hit@1, hit@3 and MRR (over the first 10; 0 beyond) of ``rank`` on ``labelled`` (query,
    the folder names that answer it), and the misses at 3."""
    hit1 = hit3 = 0
    reciprocal = 0.0
    misses = []
    for query, wanted in labelled:
        found = [_base(key) for key in rank(query)[:10]]
        first = next((i for i, name in enumerate(found) if name in wanted), None)
        hit1 += first == 0
        hit3 += first is not None and first < 3
        reciprocal += 0.0 if first is None else 1.0 / (first + 1)
        if first is None or first >= 3:
            misses.append((query, "|".join(sorted(wanted)), found[:3]))
    n = len(labelled) or 1
    return hit1 / n, hit3 / n, reciprocal / n, misses


def split_half(query: str) -> str:
    """The half of a split query set ``query`` belongs to, fixed by its text alone: the last
    hex digit of its sha256 even -> "dev", odd -> "report"."""
    import hashlib

    return "dev" if int(hashlib.sha256(query.encode()).hexdigest()[-1], 16) % 2 == 0 else "report"


def load_queries(queries_file: Path, half: str = "all") -> list[tuple[str, tuple[str, ...]]]:
    """(query, labelled folders) of ``queries_file`` (``skill = ...`` or ``skills = [...]``),
    only those of ``half`` unless it is "all"."""
    data = tomllib.loads(queries_file.read_text(encoding="utf-8"))
    out = []
    for item in data["query"]:
        skills = tuple(item["skills"]) if "skills" in item else (item["skill"],)
        if half == "all" or split_half(item["q"]) == half:
            out.append((item["q"], skills))
    return out


def near_copies(real: Path, folders: Sequence[str]) -> dict[str, set[str]]:
    """folder name -> the folder names of every SKILL.md whose description is the same text
    (case and spacing aside) as that folder's: a copy published under another name answers
    the same need."""
    import yaml

    def description(path: Path) -> str:
        text = path.read_text(encoding="utf-8", errors="replace")
        match = re.match(r"---\s*\n(.*?)\n---", text, re.DOTALL)
        try:
            front = yaml.safe_load(match.group(1)) if match else None
        except yaml.YAMLError:
            return ""
        value = front.get("description") if isinstance(front, dict) else None
        return " ".join(str(value).lower().split()) if value else ""

    by_text: dict[str, set[str]] = {}
    for dp, _, files in os.walk(real):
        if "SKILL.md" in files:
            text = description(Path(dp, "SKILL.md"))
            if len(text) >= 20:
                by_text.setdefault(text, set()).add(Path(dp).name)
    out = {}
    for folder in folders:
        text = description(real / folder / "SKILL.md")
        out[Path(folder).name] = by_text.get(text, set()) | {Path(folder).name}
    return out


def quality_figures(real: Path, queries_file: Path, work: Path, half: str = "all"
                    ) -> dict[str, Any]:
    from lemon_core.context import LemonContext
    from lemon_core.search.snapshot_index import index_for
    from lemon_core.search.views import body_of
    from lemon_core.skills import api

    raw = load_queries(queries_file, half)
    copies = near_copies(real, sorted({f for _, folders in raw for f in folders}))
    labelled = [(q, frozenset(n for f in folders for n in copies[Path(f).name]))
                for q, folders in raw]
    dest = lay_out_real(real, work / "real")
    project, home = dest / "project", dest / "home"
    ctx = LemonContext(cwd=project, home=home, env={"HOME": str(home), "PATH": "",
                                                    "LEMON_CACHE_DIR": str(work / "cache-q")})
    entries = api.list_skills(ctx).skills
    docs_nd, docs_ndb = [], []
    for item in entries:
        entry = item.entry
        head = f"{entry.key} {entry.name} {entry.description}"
        docs_nd.append((entry.key, head))
        text = Path(entry.path).read_text(encoding="utf-8", errors="replace")
        docs_ndb.append((entry.key, f"{head} {body_of(text)}"))
    plain_nd, plain_ndb = PlainBM25(docs_nd), PlainBM25(docs_ndb)
    present = {_base(item.entry.key) for item in entries}
    missing = [(q, "|".join(sorted(w))) for q, w in labelled if not w & present]
    labelled = [(q, w & present) for q, w in labelled if w & present]  # no ranker finds the rest
    # The same documents for every ranker: every loadable skill (find_relevant would also
    # leave out this machine's platform-incompatible and hidden ones, which the labels include).
    catalog = api.catalog_for(ctx)
    index = index_for(catalog, catalog.snapshot())
    rankers = {
        "lemon (find_relevant's index)": lambda q: [key for key, _ in index.search(q, 10)],
        "BM25 name+description": lambda q: plain_nd.search(q, 10),
        "BM25 name+description+body": lambda q: plain_ndb.search(q, 10),
    }
    results = {name: hit_rates(rank, labelled) for name, rank in rankers.items()}
    return {"queries": len(labelled), "entries": len(entries), "unloadable_labels": missing,
            "results": results}


# -- the run ------------------------------------------------------------------------------------


def _locate(args: argparse.Namespace, work: Path) -> tuple[Path, dict[str, Any]]:
    import json

    dest = args.corpus if args.corpus is not None else work / "corpus"
    summary_file = dest / "corpus.json"
    if summary_file.exists():
        return dest, json.loads(summary_file.read_text())
    return dest, corpus_module.generate(dest, args.skills)


def run(args: argparse.Namespace, work: Path) -> bool:
    ok = True
    print(lemon_figures_machine())
    if not args.no_speed:
        base, summary = _locate(args, work)
        s = speed_figures(base, summary, work, args.repeat)
        ratio = s["cli search"] / s["cli list"]
        p50_ok, ratio_ok = s["p50"] <= P50_TARGET_MS, ratio <= CLI_RATIO_TARGET
        ok &= p50_ok and ratio_ok
        print(f"\nspeed: generated corpus {base} ({s['entries']} skills)")
        rows = [
            ("find_relevant, first call (scan + index)", s["first call"], "", None),
            ("index build alone", s["index build"], "", None),
            ("find_relevant p50", s["p50"], f"<= {P50_TARGET_MS}", p50_ok),
            ("find_relevant p95", s["p95"], "", None),
            ("find_relevant p50, CPU time of this process", s["cpu p50"], "", None),
            ("index search alone p50", s["index p50"], "", None),
            ("cli skill list --json (warm)", s["cli list"], "", None),
            ("cli skill search --json (warm)", s["cli search"],
             f"<= {CLI_RATIO_TARGET} x list = {CLI_RATIO_TARGET * s['cli list']:.1f}", ratio_ok),
        ]
        print(f"{'measure':<44} {'ms':>9}  {'target':<28} result")
        for name, value, target, passed in rows:
            result = "" if passed is None else "PASS" if passed else "FAIL"
            print(f"{name:<44} {value:>9.2f}  {target:<28} {result}".rstrip())
        print(f"search / list = {ratio:.2f}; {lemon_figures_machine().split('; ')[-1]}")
    if not args.no_quality:
        if args.misses and args.half == "report":
            raise SystemExit("--misses is refused on the report half: measure it, never tune on it")
        q = quality_figures(args.real, args.queries, work, args.half)
        print(f"\nquality: {q['queries']} labelled queries over {args.real} "
              f"({q['entries']} loadable skills; {len(q['unloadable_labels'])} queries whose "
              f"skill lemon's manifest rules refuse are left out)")
        print(f"queries: {args.queries.name}, half: {args.half}")
        print(f"{'ranker':<30} {'hit@1':>6} {'hit@3':>6} {'MRR':>6}")
        for name, (h1, h3, mrr, _) in q["results"].items():
            print(f"{name:<30} {h1:>6.3f} {h3:>6.3f} {mrr:>6.3f}")
        lemon_h3 = q["results"]["lemon (find_relevant's index)"][1]
        ok &= lemon_h3 >= HIT3_TARGET
        print(f"target: lemon hit@3 >= {HIT3_TARGET}: {'PASS' if lemon_h3 >= HIT3_TARGET else 'FAIL'}")
        for query, wanted in q["unloadable_labels"]:
            print(f"label not loadable: {wanted!r} ({query!r})")
        if args.misses:
            for query, wanted, found in q["results"]["lemon (find_relevant's index)"][3]:
                print(f"miss: {query!r}: wanted {wanted}, got {found}")
    return ok


def lemon_figures_machine() -> str:
    import platform

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (f"machine: {os.cpu_count()} cpus, {platform.machine()}, {platform.system()} "
            f"{platform.release()}; Python {platform.python_version()}; warm OS cache; "
            f"load average {load}")


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="lemon-bench-search-") as tmp:
        ok = run(args, Path(tmp))
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
