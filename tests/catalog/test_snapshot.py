"""``build_entries``: a link in an agent root to a skill listed already is the same skill."""

from __future__ import annotations

from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.snapshot import build_entries, scan
from tests.helpers import write_skill


def test_a_link_to_a_listed_skill_is_neither_an_entry_nor_shadowed(tmp_path) -> None:
    lemons, claude, agents = (tmp_path / n for n in ("lemon", "claude", "agents"))
    write_skill(lemons, "demo")
    claude.mkdir()
    (claude / "demo").symlink_to("../lemon/demo")
    write_skill(agents, "demo", body="Another skill of the same name.\n")
    roots = tuple(SkillRoot(p, "global", i) for p, i in
                  ((lemons, "lemon"), (claude, "claude"), (agents, "agents")))
    (entry,) = build_entries(scan(roots, ()).parsed)
    assert entry.dir == str(lemons / "demo")
    assert entry.shadowed == (str(agents / "demo" / "SKILL.md"),)  # a real other copy
