"""audit_folder with every built-in auditor stays linear in the size of a skill: a file of
one long line and a file of many short lines, each timed (CPU, best of two) at two sizes.
Four times the text may cost about four times as much, never sixteen: a quadratic scan over
a long line, or per-line work that rescans the whole file, fails here long before a real
skill makes an install wait."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lemon_core.audit.host import audit_folder
from lemon_core.audit.policy_doc import builtin_auditors
from lemon_core.auditor_kit import clear_caches

#: Prose that wakes every rule family (a request, a key, a URL, a command, a send).
SENTENCE = ("Run the user's tests, then send the report key to https://docs.python.org/3/ "
            "with curl; ")


def _one_line(size: int) -> str:
    return SENTENCE * (size // len(SENTENCE)) + "\n"


def _many_lines(count: int) -> str:
    # numbered, so no two lines are alike: the caches of repeated lines do not hide the cost
    return "".join(f"- step {i}: {SENTENCE}\n" for i in range(count))


def _cpu(folder: Path, body: str) -> float:
    (folder / "SKILL.md").write_text("---\nname: demo\ndescription: A demo.\n---\n" + body,
                                     encoding="utf-8")
    auditors = builtin_auditors()
    best = float("inf")
    for _ in range(2):
        clear_caches()  # as a new skill: nothing parsed or searched before
        start = time.process_time()
        report = audit_folder(folder, auditors=auditors)
        best = min(best, time.process_time() - start)
    assert report.verdict == "pass"  # documentation links and a test run: nothing to judge
    return best


@pytest.mark.slow
@pytest.mark.parametrize(("make", "small"), [(_one_line, 60_000), (_many_lines, 800)],
                         ids=["one-long-line", "many-short-lines"])
def test_four_times_the_skill_costs_about_four_times_not_sixteen(tmp_path: Path, make,
                                                                 small: int) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()
    _cpu(folder, make(small))  # patterns compiled, modules loaded: not part of the figure
    short = _cpu(folder, make(small))
    long = _cpu(folder, make(4 * small))
    assert long <= 8 * short + 0.05, (short, long)
