"""Lockfile records through the one converter: every shape round-trips, known fields first
in the file, unknown ones kept."""

from __future__ import annotations

import pytest

from lemon_core.state.records import (
    AuditOverride,
    LockRecord,
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
def test_every_shape_round_trips_known_fields_first(record: LockRecord) -> None:
    data = unstructure_record(record)
    known = [name for name in data if name not in record.extra]
    assert list(data) == known + [name for name in record.extra if name not in known]
    assert known[0] == "key" and "extra" not in data
    assert ("audit_override" in data) == (record.audit_override is not None)
    assert structure_record(record.key, {k: v for k, v in data.items() if k != "key"}) == record
