"""Catalog.vouch: a caller holding a kernel watch skips or forces the next stat check."""

from pathlib import Path

from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.snapshot import Catalog
from tests.helpers import write_skill


def test_vouch_skips_or_forces_the_check(tmp_path: Path, monkeypatch) -> None:
    write_skill(tmp_path, "one")
    catalog = Catalog([SkillRoot(tmp_path, "project", "r")])
    first = catalog.snapshot()
    checks = []
    original = type(first).unchanged
    monkeypatch.setattr(type(first), "unchanged", lambda self: checks.append(1) or original(self))
    catalog.vouch(True)
    assert catalog.snapshot() is first and checks == []
    write_skill(tmp_path, "two")
    catalog.vouch(False)  # the watch saw an event: check now, even inside the interval
    assert [e.key for e in catalog.snapshot().entries] == ["one", "two"]


def test_vouch_for_longer_than_the_interval(tmp_path: Path, monkeypatch) -> None:
    from lemon_core.catalog import snapshot as module

    write_skill(tmp_path, "one")
    catalog = Catalog([SkillRoot(tmp_path, "project", "r")])
    first = catalog.snapshot()
    now = [1000.0]
    monkeypatch.setattr(module.time, "monotonic", lambda: now[0])
    catalog.vouch(True, seconds=2.0)
    write_skill(tmp_path, "two")
    now[0] += 1.5
    assert catalog.snapshot() is first  # still vouched for
    now[0] += 1.0
    assert [e.key for e in catalog.snapshot().entries] == ["one", "two"]
