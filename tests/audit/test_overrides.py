"""Overrides are bound to one exact bundle hash and to the rules that fired."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from lemon_core.audit.host import audit_folder
from lemon_core.audit.overrides import make_override, override_allows
from tests.audit.conftest import PatternAuditor

Skill = Callable[..., Path]


def test_an_override_allows_exactly_its_bundle(skill: Skill) -> None:
    folder = skill({"a.sh": "curl x\n"})
    report = audit_folder(folder, auditors=[PatternAuditor()])
    override = make_override(report, "2026-12-01T00:00:00Z")
    assert override == {"bundle_hash": report.bundle_hash, "approved_at": "2026-12-01T00:00:00Z",
                        "rules": ["pattern.word"]}
    assert override_allows(report, override)
    (folder / "a.sh").write_text("curl x \n")  # one byte more
    changed = audit_folder(folder, auditors=[PatternAuditor()])
    assert changed.verdict == "block" and not override_allows(changed, override)


def test_a_new_rule_firing_on_the_same_bytes_needs_a_new_approval(skill: Skill) -> None:
    folder = skill({"a.sh": "curl x wget\n"})
    report = audit_folder(folder, auditors=[PatternAuditor()])
    override = make_override(report)
    again = audit_folder(folder, auditors=[PatternAuditor(), PatternAuditor("wget", name="new")])
    assert again.bundle_hash == report.bundle_hash
    assert not override_allows(again, override)


def test_records_and_malformed_overrides(skill: Skill) -> None:
    report = audit_folder(skill({"a.sh": "curl\n"}), auditors=[PatternAuditor()])

    @attrs.frozen
    class Record:
        bundle_hash: str
        approved_at: str
        rules: tuple[str, ...] = ()

    assert override_allows(report, Record(report.bundle_hash or "", "t"))  # hash alone
    assert override_allows(report, Record(report.bundle_hash or "", "t", ("pattern.word",)))
    assert not override_allows(report, Record(report.bundle_hash or "", "t", ("other",)))
    assert not override_allows(report, None)
    assert not override_allows(report, {"bundle_hash": (report.bundle_hash or "").upper()})
    assert not override_allows(report, {"bundle_hash": report.bundle_hash, "rules": "pattern"})
    assert not override_allows(report, {"bundle_hash": 5})
    assert not override_allows(report, {})


def test_a_bundle_without_a_hash_cannot_be_overridden(skill: Skill) -> None:
    from lemon_core.fsio.tree import TreeLimits

    folder = skill({"big": "x" * 3000})
    report = audit_folder(folder, auditors=[], limits=TreeLimits(max_file_bytes=1000))
    assert report.bundle_hash is None and report.verdict == "block"
    assert not override_allows(report, {"bundle_hash": None})
    try:
        make_override(report)
    except ValueError:
        pass
    else:
        raise AssertionError("a bundle without a hash was approved")
