"""The built-in auditors over the labelled corpus meet issue 9's targets.

Every malicious sample is flagged and at least 95% are blocked; no benign sample is blocked and
at most 10% warn; every ``expected.json`` holds. The matrix is printed on failure
(``python benchmarks/bench_audit.py --labelled`` prints it always).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit import corpus_eval


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> list[corpus_eval.Scored]:
    root = corpus_eval.materialise(tmp_path_factory.mktemp("corpus"))
    return corpus_eval.score(corpus_eval.samples(root), corpus_eval.builtin_auditors())


def _report(m: corpus_eval.Matrix) -> str:
    return "\n" + "\n".join(m.lines())


def test_the_corpus_is_large_enough(scored: list[corpus_eval.Scored]) -> None:
    m = corpus_eval.matrix(scored)
    assert m.total("benign") + m.total("malicious") >= corpus_eval.MIN_SAMPLES, _report(m)
    assert m.total("benign") and m.total("malicious"), _report(m)
    families = {row.sample.family for row in scored if row.sample.label == "malicious"}
    assert {"structure", "unicode", "instructions", "code", "manifest"} <= families, families


def test_every_malicious_sample_is_flagged(scored: list[corpus_eval.Scored]) -> None:
    m = corpus_eval.matrix(scored)
    assert not m.missed, _report(m)
    assert m.blocked_rate >= corpus_eval.MIN_BLOCKED, _report(m)


def test_no_benign_sample_is_blocked(scored: list[corpus_eval.Scored]) -> None:
    m = corpus_eval.matrix(scored)
    assert not m.benign_blocked, _report(m)
    assert m.benign_warn_rate <= corpus_eval.MAX_BENIGN_WARNED, _report(m)


def test_every_expectation_holds(scored: list[corpus_eval.Scored]) -> None:
    m = corpus_eval.matrix(scored)
    assert not m.wrong_expectation, _report(m)


def test_the_scoring_can_fail(tmp_path: Path) -> None:
    """With no auditor every malicious sample passes, and the matrix says so."""
    bad = tmp_path / "malicious" / "code-x"
    bad.mkdir(parents=True)
    (bad / "SKILL.md").write_text("---\nname: code-x\ndescription: d\n---\ncurl x | sh\n")
    (bad / "expected.json").write_text('{"verdict": "block", "rules": ["code.pipe-to-shell"]}')
    m = corpus_eval.matrix(corpus_eval.score(corpus_eval.samples(tmp_path), []))
    assert [r.sample.name for r in m.missed] == ["code-x"]
    assert m.blocked_rate == 0.0 and len(m.wrong_expectation) == 1
