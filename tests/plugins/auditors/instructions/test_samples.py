"""The instructions auditor on its own evaluation (``dev.toml``, ``report.toml``: samples
written from public reports, split by pair before any rule was written; see ``samples.py``).
The rules were developed on the dev half; the report half is what the figures report."""

from __future__ import annotations

import pytest

from tests.plugins.auditors.instructions.samples import load, verdict

DEV = load("dev")


def test_the_halves_are_the_split_of_whole_pairs_in_twelve_or_more_languages() -> None:
    report = load("report")
    assert len(DEV) + len(report) >= 60
    pairs = {(s["pair"], s["variant"]) for s in DEV} | {(s["pair"], s["variant"]) for s in report}
    assert len(pairs) == len(DEV) + len(report)
    assert {s["pair"] for s in DEV} == {s["pair"] for s in report}  # one variant each side
    assert len({s["language"] for s in [*DEV, *report]}) >= 12
    assert {s["label"] for s in DEV} == {s["label"] for s in report} == {"malicious", "benign"}


@pytest.mark.parametrize("sample", [s for s in DEV if s["label"] == "malicious"],
                         ids=lambda s: f"{s['pair']}-{s['language']}")
def test_every_malicious_dev_sample_blocks(sample: dict[str, object]) -> None:
    assert verdict(sample)[0] == "block"


@pytest.mark.parametrize("sample", [s for s in DEV if s["label"] == "benign"],
                         ids=lambda s: f"{s['pair']}-{s['language']}")
def test_no_benign_dev_sample_blocks(sample: dict[str, object]) -> None:
    assert verdict(sample)[0] != "block"


def test_the_report_half_as_measured_once_the_rules_were_written() -> None:
    """Measured once, after the rules were written on the dev half. First wave (44 samples):
    every malicious sample blocked, no benign one. Second wave (36 more samples, 18 of them
    here; before its rules: 29 of 34 malicious blocked, 1 of 21 benign blocked): 33 of 34
    blocked, 1 of 21 benign blocked. A regression guard, not a target to tune the rules on."""
    report = load("report")
    verdicts = [(s["label"], verdict(s)[0]) for s in report]
    malicious = [worst for label, worst in verdicts if label == "malicious"]
    assert sum(worst == "block" for worst in malicious) >= len(malicious) - 1
    assert sum(worst == "block" for label, worst in verdicts if label == "benign") <= 1
