"""Scoring the labelled audit corpus (tests/fixtures/audit_corpus), for the test and the
benchmark alike.

``benign/<name>/`` are skills no auditor may block; ``malicious/<family>-<name>/`` are skills
every auditor run must flag, optionally with ``expected.json`` ``{"verdict", "rules"}``.
Samples git cannot hold (links out, FIFOs, hard links) are added by the corpus's own
``build.py`` ``materialise(dest)``, which copies the corpus first.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "audit_corpus"
#: The targets of issue 9 §5.
MIN_SAMPLES = 60
MIN_BLOCKED = 0.95
MAX_BENIGN_WARNED = 0.10


@attrs.frozen
class Sample:
    name: str
    label: str  # "benign" or "malicious"
    family: str
    path: Path
    expected: dict[str, Any] | None = None


@attrs.frozen
class Scored:
    sample: Sample
    verdict: str
    rules: tuple[str, ...]


def materialise(dest: Path) -> Path:
    """The corpus, built into ``dest`` (by its ``build.py`` when it has one)."""
    build = CORPUS / "build.py"
    if build.is_file():
        spec = importlib.util.spec_from_file_location("audit_corpus_build", build)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return Path(module.materialise(dest))
    target = dest / "audit_corpus"
    shutil.copytree(CORPUS, target, symlinks=True)
    return target


def samples(root: Path) -> list[Sample]:
    found = []
    for label in ("benign", "malicious"):
        folder = root / label
        if not folder.is_dir():
            continue
        for sample in sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()):
            family = sample.name.split("-", 1)[0] if label == "malicious" else "benign"
            expected = None
            spec = sample / "expected.json"
            if label == "malicious" and spec.is_file() and not spec.is_symlink():
                expected = json.loads(spec.read_text(encoding="utf-8"))
            found.append(Sample(sample.name, label, family, sample, expected))
    return found


def score(items: Sequence[Sample], auditors: Sequence[Any]) -> list[Scored]:
    from lemon_core.audit.host import audit_folder

    out = []
    for sample in items:
        report = audit_folder(sample.path, auditors=auditors)
        out.append(Scored(sample, report.verdict, report.rules))
    return out


@attrs.frozen
class Matrix:
    """Rows benign/malicious, columns pass/warn/block, and the misses behind the targets."""

    counts: dict[str, dict[str, int]]
    missed: tuple[Scored, ...]  # malicious that passed
    warned_only: tuple[Scored, ...]  # malicious that only warned
    benign_blocked: tuple[Scored, ...]
    benign_warned: tuple[Scored, ...]
    wrong_expectation: tuple[tuple[Scored, str], ...]

    def total(self, label: str) -> int:
        return sum(self.counts[label].values())

    @property
    def blocked_rate(self) -> float:
        total = self.total("malicious")
        return self.counts["malicious"]["block"] / total if total else 0.0

    @property
    def benign_warn_rate(self) -> float:
        total = self.total("benign")
        return self.counts["benign"]["warn"] / total if total else 0.0

    def lines(self) -> list[str]:
        out = ["              pass  warn  block  total"]
        for label in ("benign", "malicious"):
            c = self.counts[label]
            out.append(f"  {label:10} {c['pass']:5} {c['warn']:5} {c['block']:6} "
                       f"{self.total(label):6}")
        out.append(f"  malicious blocked {self.blocked_rate:.1%}, benign warned "
                   f"{self.benign_warn_rate:.1%}")
        for title, rows in (("malicious passed", self.missed),
                            ("malicious only warned", self.warned_only),
                            ("benign blocked", self.benign_blocked),
                            ("benign warned", self.benign_warned)):
            for row in rows:
                out.append(f"  {title}: {row.sample.name} ({', '.join(row.rules) or '-'})")
        for row, why in self.wrong_expectation:
            out.append(f"  expected.json not met: {row.sample.name}: {why}")
        return out


def _expectation(row: Scored) -> str | None:
    expected = row.sample.expected
    if not expected:
        return None
    verdict = expected.get("verdict")
    if verdict and verdict != row.verdict:
        return f"verdict {row.verdict}, expected {verdict}"
    missing = [r for r in expected.get("rules", ()) if r not in row.rules]
    if missing:
        return f"rules {', '.join(missing)} did not fire (fired: {', '.join(row.rules) or '-'})"
    return None


def matrix(rows: Sequence[Scored]) -> Matrix:
    counts = {label: {"pass": 0, "warn": 0, "block": 0} for label in ("benign", "malicious")}
    for row in rows:
        counts[row.sample.label][row.verdict] += 1
    mal = [r for r in rows if r.sample.label == "malicious"]
    ben = [r for r in rows if r.sample.label == "benign"]
    wrong = tuple((r, why) for r in mal if (why := _expectation(r)) is not None)
    return Matrix(counts, tuple(r for r in mal if r.verdict == "pass"),
                  tuple(r for r in mal if r.verdict == "warn"),
                  tuple(r for r in ben if r.verdict == "block"),
                  tuple(r for r in ben if r.verdict == "warn"), wrong)


def builtin_auditors() -> list[Any]:
    from lemon_core.audit.policy_doc import builtin_auditors as builtins

    return builtins()


__all__ = ["CORPUS", "Matrix", "Sample", "Scored", "builtin_auditors", "materialise", "matrix",
           "samples", "score"]
