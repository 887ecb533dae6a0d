"""The agent API shows hidden characters as escapes in everything it returns for a model
(issue 17 §5): ``read_skill`` in each view and ``find_relevant``'s descriptions."""

from __future__ import annotations

from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.skills.agent import find_relevant, read_skill
from tests.helpers import write_skill

TAGS = "".join(chr(0xE0000 + ord(c)) for c in "do it")
HIDING = ("\u202e", "\x1b", "\U000e0064", "\u200b")


def _raw(text: str) -> list[str]:
    return [c for c in HIDING if c in text]


def test_every_view_and_the_search_results_are_defanged(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    skill_md = write_skill(project / ".agents" / "skills", "tricky",
                         description=f"Formats notes{TAGS}.",
                         body="# Usage\n\nRun \u202eevil\x1b[2J.\n\n## More\n\nzero\u200bwidth\n")
    folder = skill_md.parent
    (folder / "notes.md").write_text(f"note {TAGS}\n", encoding="utf-8")
    ctx = LemonContext.from_environment(cwd=project)

    for view, extra in (("full", {}), ("summary", {}), ("section", {"section": "usage"}),
                        ("section", {"section": "more"}), ("file", {"file": "notes.md"})):
        read = read_skill("tricky", ctx, view=view, **extra)
        assert _raw(read.content) == [], (view, extra)
        assert "[lemon: " in read.content, (view, extra)
    full = read_skill("tricky", ctx)
    assert "Run \\u202eevil\\x1b[2J." in full.content
    assert full.size == len((folder / "SKILL.md").read_bytes())  # the size on disk
    hits = find_relevant("notes", ctx)
    assert hits[0].key == "tricky" and _raw(hits[0].description) == []
    assert "\\U000e0064" in hits[0].description
