"""``skill_files``: the one listing of a skill folder's other files (inspect, read_skill,
load_skill)."""

import os
from pathlib import Path

import pytest

from lemon_core.fsio.listing import skill_files


def skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Use when testing.\n---\n")
    return folder


def test_other_files_relative_sorted_without_skill_md(tmp_path) -> None:
    folder = skill(tmp_path, "s")
    (folder / "references").mkdir()
    (folder / "references" / "b.md").write_text("b")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("x")
    assert skill_files(str(folder)) == ("references/b.md", "scripts/run.sh")


def test_links_kept_only_inside_the_skill(tmp_path) -> None:
    folder = skill(tmp_path, "s")
    (tmp_path / "secret.txt").write_text("no")
    (folder / "inner.md").write_text("yes")
    os.symlink(tmp_path / "secret.txt", folder / "outward.txt")
    os.symlink("inner.md", folder / "alias.md")
    os.symlink(tmp_path, folder / "linked-dir")
    os.mkfifo(folder / "pipe")
    assert skill_files(str(folder)) == ("alias.md", "inner.md")


def test_names_with_control_line_break_or_bidi_characters_are_left_out(tmp_path) -> None:
    folder = skill(tmp_path, "s")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run\x1b[2J\r\nlemon: error: forged\u202e.sh").write_text("x")
    (folder / "scripts" / "ok.sh").write_text("x")
    hostile_dir = folder / "refs\u202egnp.md"
    hostile_dir.mkdir()
    (hostile_dir / "inner.md").write_text("x")
    # ordinary non-Latin names and emoji stay
    (folder / "説明.md").write_text("x")
    (folder / "notes-👩\u200d💻.md").write_text("x")
    assert skill_files(str(folder)) == ("notes-👩\u200d💻.md", "scripts/ok.sh", "説明.md")


def test_a_person_facing_listing_may_keep_unsafe_names_and_every_listing_is_bounded(
        tmp_path) -> None:
    folder = skill(tmp_path, "s")
    (folder / "run\x1b[2J.sh").write_text("x")
    for index in range(5):
        (folder / f"f{index}.md").write_text("x")
    assert "run\x1b[2J.sh" in skill_files(str(folder), unsafe_names=True)
    assert "run\x1b[2J.sh" not in skill_files(str(folder))
    assert skill_files(str(folder), limit=3) == ("f0.md", "f1.md", "f2.md")


def test_a_folder_swapped_for_a_link_while_listed_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17 §6: ``references/`` found a real folder, then flipped to a link to an outside
    folder before it is listed: the outside names never reach the list."""
    from lemon_core.fsio import listing

    skill, outside = tmp_path / "skill", tmp_path / "outside"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: skill\n---\n")
    (skill / "references" / "inside.md").write_text("in")
    outside.mkdir()
    (outside / "id_rsa").write_text("secret")
    real = listing._entries
    calls = []

    def entries_then_swap(*args: object) -> object:
        found = real(*args)  # type: ignore[arg-type]
        if not calls:  # the skill folder itself was listed: flip its sub-folder now
            os.rename(skill / "references", tmp_path / "aside")
            (skill / "references").symlink_to(outside, target_is_directory=True)
        calls.append(args)
        return found

    monkeypatch.setattr(listing, "_entries", entries_then_swap)
    assert listing.skill_files(str(skill)) == ()
    assert len(calls) == 2  # the sub-folder was looked at, and refused
