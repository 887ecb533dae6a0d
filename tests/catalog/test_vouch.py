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
