"""Lockfile records: the hand-written writer gives what the cattrs converter gives, without it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lemon_core.state.records import (
    AuditOverride,
    LockRecord,
    converter,
    structure_record,
    unstructure_record,
)

RECORDS = [
    LockRecord("plain"),
    LockRecord("full", "git", source_id="https://example.invalid/r.git", identifier="git+x",
               requested_ref="main", resolved_commit="a" * 40, subdirectory="skills/x",
               trust_level="community", content_hash="sha256:" + "1" * 64,
               bundle_hash="sha256:" + "2" * 64, upstream_hash="sha256:" + "3" * 64,
               installed_at="2026-01-01T00:00:00Z", updated_at="2026-01-02T00:00:00Z",
               audit_status="warn", audit_findings=("[warn] a: b", "[warn] c: d")),
    LockRecord("approved", audit_status="block",
               audit_override=AuditOverride("sha256:" + "4" * 64, "2026-01-03T00:00:00Z",
                                            ("code.x", "code.y"))),
    LockRecord("bare-override", audit_override=AuditOverride("sha256:" + "5" * 64, "t")),
    LockRecord("extra", extra={"new_field": [1, 2], "z": {"a": 1}}),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.key)
def test_the_writer_matches_the_converter(record: LockRecord) -> None:
    expected = converter().unstructure(record)
    expected.pop("extra")
    if expected["audit_override"] is None:
        del expected["audit_override"]
    for name, value in record.extra.items():
        expected.setdefault(name, value)
    data = unstructure_record(record)
    assert data == expected
    assert list(data) == list(expected)  # the same key order in the file
    assert structure_record(record.key, {k: v for k, v in data.items() if k != "key"}) == record


def test_writing_a_record_does_not_import_cattrs() -> None:
    code = ("import sys\nfrom lemon_core.state.records import LockRecord, AuditOverride, "
            "unstructure_record\n"
            "unstructure_record(LockRecord('k', audit_override=AuditOverride('h', 't')))\n"
            "print('cattrs' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
