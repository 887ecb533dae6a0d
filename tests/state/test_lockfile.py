"""skills.lock.json: records through one converter, unknown fields kept, atomic locked writes."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from lemon_core.errors import ConfigError
from lemon_core.state.lockfile import read_lock_records, write_records
from lemon_core.state.records import AuditOverride, LockRecord

pytestmark = pytest.mark.integration  # starts processes or loopback servers


def _record(key: str, **fields: object) -> LockRecord:
    return LockRecord(key, "git", source_id="https://example.invalid/r.git",
                      bundle_hash="sha256:" + "0" * 64, audit_status="pass", **fields)


def test_a_record_round_trips_with_its_override(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock.json"
    override = AuditOverride("sha256:" + "1" * 64, "2026-01-01T00:00:00Z", ("code.x",))
    record = _record("one", audit_findings=("[warn] a: b",), audit_override=override)
    assert write_records(path, {"one": record}) == {"one": None}
    records, problem = read_lock_records(path)
    assert problem is None and records == {"one": record}
    document = json.loads(path.read_text())
    assert document["version"] == 1
    assert document["skills"]["one"]["audit_override"]["rules"] == ["code.x"]
    assert path.stat().st_mode & 0o777 == 0o600


def test_unknown_fields_and_unreadable_records_survive_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock.json"
    path.write_text(json.dumps({
        "version": 1, "future": {"x": 1},
        "skills": {"kept": {"source_kind": "git", "new_field": [1, 2]},
                   "broken": {"source_kind": 7}}}))
    records, problem = read_lock_records(path)
    assert set(records) == {"kept"} and records["kept"].extra == {"new_field": [1, 2]}
    assert problem is not None and problem.code == "invalid_lockfile"
    assert "'broken'" in problem.message and "source_kind" in problem.message
    write_records(path, {"added": _record("added")})
    document = json.loads(path.read_text())
    assert document["future"] == {"x": 1}
    assert document["skills"]["broken"] == {"source_kind": 7}
    assert document["skills"]["kept"] == {"source_kind": "git", "new_field": [1, 2]}
    rewritten = read_lock_records(path)[0]["kept"]
    write_records(path, {"kept": rewritten})
    assert json.loads(path.read_text())["skills"]["kept"]["new_field"] == [1, 2]


def test_a_delete_returns_what_was_there(tmp_path: Path) -> None:
    path = tmp_path / "skills.lock.json"
    write_records(path, {"a": _record("a")})
    before = write_records(path, {"a": None, "missing": None})
    assert before["a"]["key"] == "a" and before["missing"] is None
    assert read_lock_records(path) == ({}, None)
    write_records(path, before)  # undo
    assert set(read_lock_records(path)[0]) == {"a"}


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"skills": []}',
                                     b'{"version": 2, "skills": {}}'])
def test_a_broken_lockfile_is_reported_and_never_overwritten(tmp_path: Path,
                                                             content: bytes) -> None:
    path = tmp_path / "skills.lock.json"
    path.write_bytes(content)
    records, problem = read_lock_records(path)
    assert records == {} and problem is not None and problem.code == "invalid_lockfile"
    with pytest.raises(ConfigError, match="fix the file or move it away"):
        write_records(path, {"a": _record("a")})
    assert path.read_bytes() == content


def _install_many(path: str, worker: int, count: int) -> None:
    for i in range(count):
        key = f"w{worker}-{i}"
        write_records(Path(path), {key: _record(key)}, timeout=60)


@pytest.mark.slow
def test_writers_in_several_processes_lose_no_record(tmp_path: Path) -> None:
    path = tmp_path / "agent" / "skills.lock.json"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_install_many, args=(str(path), w, 15))
               for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(120)
        assert process.exitcode == 0
    records, problem = read_lock_records(path)
    assert problem is None
    assert set(records) == {f"w{w}-{i}" for w in range(4) for i in range(15)}
    assert not (tmp_path / "agent" / "skills.lock.json.lock").exists()


def test_editable_records_are_the_readable_ones_structured_on_first_use(tmp_path: Path,
                                                                        monkeypatch) -> None:
    from lemon_core.state import lockfile

    path = tmp_path / "skills.lock.json"
    good = {f"s{i}": LockRecord(key=f"s{i}", bundle_hash=f"sha256:{i}").to_json()
            for i in range(5)}
    path.write_text(json.dumps({"version": 1, "skills": {
        **good, "broken": {"audit_status": "nope"}, "odd": "not an object"}}))
    structured: list[str] = []
    real = lockfile.structure_record
    monkeypatch.setattr(lockfile, "structure_record",
                        lambda key, raw: structured.append(key) or real(key, raw))
    records = lockfile.editable_records(path)
    assert structured == []  # nothing is structured before it is asked for
    assert records["s3"].bundle_hash == "sha256:3" and structured == ["s3"]
    assert "broken" not in records and records.get("odd") is None and "nope" not in records
    assert dict(records) == read_lock_records(path)[0] and len(records) == 5
