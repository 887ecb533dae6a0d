"""The audit evaluation corpus (tests/fixtures/audit_eval, issue 19 §4): loading, scoring and
the figures, for the corpus test and for ``benchmarks/bench_audit.py --eval``.

Standard library and ``lemon_core`` only, and nothing imported from ``tests``: the benchmark
loads this file by path into the interpreter of another lemon checkout (``--lemon``), so
the figures of an older lemon come from that lemon's own code.
"""

from __future__ import annotations

import importlib.util
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "audit_eval"
FIELDS = ("path", "pair", "variant", "label", "category", "evasion", "language", "source")
LABELS = ("malicious", "benign")
#: The malicious categories of issue 19 §1–2 (benign ones are named ``benign-*``).
MALICIOUS_CATEGORIES = (
    "credential-exfil", "exec-decoded", "persistence", "destruction", "prose-secrets",
    "prose-silent", "prose-shadowing", "prose-override", "frontmatter-name-path", "dependency",
)


@dataclass(frozen=True)
class Sample:
    path: str
    pair: str
    variant: str
    label: str
    category: str
    evasion: str
    language: str
    source: str


@dataclass(frozen=True)
class Row:
    """One sample judged: its verdict, the rules that fired, and the seconds it took."""

    sample: Sample
    verdict: str
    rules: tuple[str, ...]
    seconds: float


def _module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_module() -> ModuleType:
    """``tests/fixtures/audit_eval/build.py``, loaded by path."""
    return _module("audit_eval_build", CORPUS / "build.py")


def samples(half: str | Path) -> list[Sample]:
    """The labelled samples of ``dev``, ``held``, or a folder laid out like a half."""
    return [Sample(**{k: str(entry[k]) for k in FIELDS}) for entry in build_module().labels(half)]


def materialise(half: str | Path, dest: Path) -> Path:
    return Path(build_module().materialise(half, dest))


def score(root: Path, items: Iterable[Sample], auditors: Sequence[Any] | None = None) -> list[Row]:
    """Audit every sample under ``root`` (a materialised half) with the built-in auditors."""
    from lemon_core.audit.host import audit_folder

    if auditors is None:
        from lemon_core.audit.policy_doc import builtin_auditors

        auditors = builtin_auditors()
    rows = []
    for sample in items:
        start = time.perf_counter()
        report = audit_folder(root / sample.path, auditors=auditors)
        rows.append(Row(sample, report.verdict, tuple(report.rules), time.perf_counter() - start))
    return rows


def _pct(n: int, total: int) -> str:
    return f"{n}/{total} ({n / total:.0%})" if total else "0/0"


@dataclass
class Figures:
    """What the benchmark prints for one half judged by one lemon."""

    rows: list[Row]
    by_category: dict[str, Counter[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        per: dict[str, Counter[str]] = defaultdict(Counter)
        for row in self.rows:
            per[row.sample.category][row.verdict] += 1
        self.by_category = dict(per)

    def of(self, label: str) -> list[Row]:
        return [r for r in self.rows if r.sample.label == label]

    def count(self, label: str, verdict: str) -> int:
        return sum(1 for r in self.of(label) if r.verdict == verdict)

    def summary(self) -> dict[str, Any]:
        mal, ben = self.of("malicious"), self.of("benign")
        times = sorted(r.seconds for r in self.rows) or [0.0]
        return {
            "malicious": len(mal), "benign": len(ben),
            "blocked": self.count("malicious", "block"), "warned": self.count("malicious", "warn"),
            "passed": self.count("malicious", "pass"),
            "benign_blocked": self.count("benign", "block"),
            "benign_warned": self.count("benign", "warn"),
            "ms_median": times[len(times) // 2] * 1000, "ms_max": times[-1] * 1000,
            "critical_misses": [r.sample.path for r in mal if r.verdict == "pass"],
            "benign_blocked_names": [r.sample.path for r in ben if r.verdict == "block"],
        }

    def lines(self, *, names: bool = True) -> list[str]:
        s = self.summary()
        out = [
            (f"malicious {s['malicious']}: blocked {_pct(s['blocked'], s['malicious'])}, "
             f"warned {s['warned']}, passed clean {s['passed']} (critical misses)"),
            (f"benign {s['benign']}: blocked {s['benign_blocked']}, warned {s['benign_warned']}, "
             f"passed {s['benign'] - s['benign_blocked'] - s['benign_warned']}"),
            f"time per skill: median {s['ms_median']:.1f} ms, max {s['ms_max']:.1f} ms",
            f"{'category':28} {'n':>3} {'block':>6} {'warn':>5} {'pass':>5}",
        ]
        for category in sorted(self.by_category, key=lambda c: (c.startswith("benign"), c)):
            c = self.by_category[category]
            n = sum(c.values())
            out.append(f"{category:28} {n:3} {c['block']:6} {c['warn']:5} {c['pass']:5}")
        if names:
            for title, label, verdict in (("CRITICAL MISS (malicious passed clean)", "malicious", "pass"),
                                          ("malicious only warned", "malicious", "warn"),
                                          ("BENIGN BLOCKED", "benign", "block"),
                                          ("benign warned", "benign", "warn")):
                for row in self.of(label):
                    if row.verdict == verdict:
                        fired = ", ".join(row.rules) or "-"
                        out.append(f"  {title}: {row.sample.path} [{row.sample.category}; "
                                   f"{row.sample.language}] ({fired})")
        return out


def rows_to_json(rows: Sequence[Row]) -> list[dict[str, Any]]:
    return [{"path": r.sample.path, "verdict": r.verdict, "rules": list(r.rules),
             "seconds": r.seconds} for r in rows]


def rows_from_json(items: Sequence[Sample], data: Sequence[dict[str, Any]]) -> list[Row]:
    by_path = {s.path: s for s in items}
    return [Row(by_path[d["path"]], d["verdict"], tuple(d["rules"]), float(d["seconds"]))
            for d in data]


__all__ = ["CORPUS", "FIELDS", "LABELS", "MALICIOUS_CATEGORIES", "Figures", "Row", "Sample",
           "build_module", "materialise", "rows_from_json", "rows_to_json", "samples", "score"]
