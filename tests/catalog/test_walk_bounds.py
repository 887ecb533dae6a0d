"""The walk cannot be turned into a filesystem walk: bounds per root, no pseudo-filesystems, a
SKILL.md only from inside its folder, folders that cannot be entered reported."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from lemon_core.catalog import walk
from lemon_core.catalog.roots import GROUPED, SkillRoot
from lemon_core.catalog.walk import walk_roots

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")
LINUX = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def _root(path: Path, layout: str = "flat") -> SkillRoot:
    return SkillRoot(path, "project", "agents", layout)


def _skill(path: Path, text: str = "---\nname: x\n---\n") -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(text)


def _codes(result) -> list[str]:
    return sorted(d.code for d in result.diagnostics)


# -- bounds -----------------------------------------------------------------------------------


def test_skills_are_bounded_per_root_not_only_folders(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(walk, "MAX_SKILLS_PER_ROOT", 3)
    for name in "abcde":
        _skill(tmp_path / "r" / name)
        _skill(tmp_path / "other" / name)
    result = walk_roots([_root(tmp_path / "r"), _root(tmp_path / "other")])
    assert [f.key for f in result.found] == ["a", "b", "c", "a", "b", "c"]
    limits = [d for d in result.diagnostics if d.code == "skill_limit"]
    assert [d.path for d in limits] == [str(tmp_path / "r"), str(tmp_path / "other")]
    assert all("3 skill folders" in d.message for d in limits)


def test_nested_skills_count_towards_the_bound(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(walk, "MAX_SKILLS_PER_ROOT", 2)
    for name in "abcd":
        _skill(tmp_path / "r" / "group" / name)
    result = walk_roots([_root(tmp_path / "r")])
    assert _codes(result) == ["nested_skills", "skill_limit"]
    nested = next(d for d in result.diagnostics if d.code == "nested_skills")
    assert nested.message.startswith("at least 2 SKILL.md files")


def test_folders_are_bounded_with_one_warning(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(walk, "MAX_DIRS_PER_ROOT", 5)
    for i in range(10):
        (tmp_path / "r" / f"g{i}" / "h").mkdir(parents=True)
    result = walk_roots([_root(tmp_path / "r", GROUPED)])
    assert _codes(result) == ["scan_limit"]
    assert len(result.watched_dirs) == 5


def test_a_huge_group_cannot_use_up_the_bound_before_the_roots_own_skills(
    tmp_path, monkeypatch
) -> None:
    """Breadth first: ``a-huge -> /`` sorts before ``valid`` but is searched after it."""
    monkeypatch.setattr(walk, "MAX_SKILLS_PER_ROOT", 3)
    for name in "abcdef":
        _skill(tmp_path / "r" / "a-huge" / name)
    _skill(tmp_path / "r" / "valid")
    _skill(tmp_path / "r" / "z-group" / "deep")
    for layout in ("flat", GROUPED):
        result = walk_roots([_root(tmp_path / "r", layout)])
        keys = [f.key for f in result.found]
        assert "valid" in keys and "skill_limit" in _codes(result)
    grouped = walk_roots([_root(tmp_path / "r", GROUPED)])
    assert [f.key for f in grouped.found] == ["a", "b", "valid"]  # sorted path order


def test_grouped_skills_keep_sorted_path_order(tmp_path) -> None:
    _skill(tmp_path / "r" / "b-group" / "inner" / "one")
    _skill(tmp_path / "r" / "a-group" / "two")
    _skill(tmp_path / "r" / "c-top")
    result = walk_roots([_root(tmp_path / "r", GROUPED)])
    assert [f.key for f in result.found] == ["two", "one", "c-top"]


# -- pseudo-filesystems ---------------------------------------------------------------------------


@LINUX
def test_links_into_pseudo_filesystems_are_never_entered(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    for name, target in (("proc", "/proc"), ("sys", "/sys"), ("dev", "/dev"),
                         ("self", "/proc/self"), ("shm", "/dev/shm")):
        if os.path.isdir(target):
            os.symlink(target, root / name)
    _skill(root / "real")
    started = time.monotonic()
    for layout in ("flat", GROUPED):
        result = walk_roots([_root(root, layout)])
        assert [f.key for f in result.found] == ["real"]
        codes = {Path(d.path).name: d.code for d in result.diagnostics}
        assert set(codes.values()) == {"pseudo_filesystem"}
        assert set(codes) == {p.name for p in root.iterdir() if p.is_symlink()}
    assert time.monotonic() - started < 10


@LINUX
def test_mount_points_of_pseudo_filesystems_are_never_entered(tmp_path, monkeypatch) -> None:
    """Through a link to /, /proc is a plain folder entry; its device tells."""
    monkeypatch.setattr(walk, "MAX_DEPTH", 0)  # list / itself, enter nothing else
    result = walk_roots([_root(Path("/"), GROUPED)])
    pseudo = {d.path for d in result.diagnostics if d.code == "pseudo_filesystem"}
    assert {"/proc", "/sys"} <= pseudo


@LINUX
def test_a_root_inside_a_pseudo_filesystem_is_not_walked(tmp_path: Path) -> None:
    result = walk_roots([_root(Path("/proc"), GROUPED), _root(Path("/sys/kernel"))])
    assert result.found == ()
    assert _codes(result) == ["pseudo_filesystem", "pseudo_filesystem"]


@LINUX
def test_a_link_to_the_filesystem_root_stays_bounded(tmp_path: Path) -> None:
    """``ln -s / .agents/skills/root``: nothing of the machine is listed as a skill."""
    root = tmp_path / "r"
    root.mkdir()
    os.symlink("/", root / "root")
    result = walk_roots([_root(root)])
    assert result.found == ()
    # "/" is above the root: following it would only lead back, so it is a loop, not walked
    assert [d.code for d in result.diagnostics] == ["symlink_loop"]
    assert len(result.watched_dirs) == 1
    grouped = walk_roots([SkillRoot(root, "global", "g", GROUPED)])
    assert grouped.found == () and [d.code for d in grouped.diagnostics] == ["symlink_loop"]


# -- a SKILL.md from inside its folder only ---------------------------------------------------


@POSIX
def test_skill_md_linked_outside_the_folder_is_an_error_never_a_skill(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("---\nname: leaked\ndescription: secret\n---\n")
    (tmp_path / "r" / "pw").mkdir(parents=True)
    os.symlink("/etc/passwd", tmp_path / "r" / "pw" / "SKILL.md")
    (tmp_path / "r" / "up").mkdir()
    os.symlink("../../secret.txt", tmp_path / "r" / "up" / "SKILL.md")
    result = walk_roots([_root(tmp_path / "r")])
    assert result.found == ()
    assert [(Path(d.path).parent.name, d.severity, d.code) for d in result.diagnostics] == [
        ("pw", "error", "skill_file_outside"), ("up", "error", "skill_file_outside")]
    assert "outside the skill folder" in result.diagnostics[0].message


@POSIX
def test_skill_md_linked_inside_the_folder_and_linked_skill_folders_load(tmp_path) -> None:
    _skill(tmp_path / "checkout" / "linked")
    (tmp_path / "r" / "inner" / "docs").mkdir(parents=True)
    (tmp_path / "r" / "inner" / "docs" / "real.md").write_text("---\nname: inner\n---\n")
    os.symlink("docs/real.md", tmp_path / "r" / "inner" / "SKILL.md")
    os.symlink(tmp_path / "checkout" / "linked", tmp_path / "r" / "linked")
    result = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in result.found] == ["inner", "linked"]
    assert result.diagnostics == ()


# -- folders that cannot be entered -----------------------------------------------------------


@POSIX
def test_a_skill_folder_without_the_execute_bit_is_reported(tmp_path: Path) -> None:
    """chmod 0600 on a skill folder: its owner's agents cannot open SKILL.md. Decided by the
    mode bits, so the test holds as root too (root would open it anyway)."""
    _skill(tmp_path / "r" / "ok")
    _skill(tmp_path / "r" / "locked")
    os.chmod(tmp_path / "r" / "locked", 0o600)
    try:
        result = walk_roots([_root(tmp_path / "r")])
    finally:
        os.chmod(tmp_path / "r" / "locked", 0o755)
    assert [f.key for f in result.found] == ["ok"]
    assert [(Path(d.path).name, d.code) for d in result.diagnostics] == [
        ("locked", "unreadable_directory")]
    assert "chmod u+x" in result.diagnostics[0].message


@POSIX
def test_a_group_without_the_execute_bit_is_reported(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "g" / "inside")
    os.chmod(tmp_path / "r" / "g", 0o600)
    try:
        result = walk_roots([_root(tmp_path / "r", GROUPED)])
    finally:
        os.chmod(tmp_path / "r" / "g", 0o755)
    assert result.found == () and _codes(result) == ["unreadable_directory"]


def test_the_nested_search_of_a_flat_root_has_a_small_budget(tmp_path, monkeypatch) -> None:
    """Nothing below a flat root's children is loaded, so a link to a huge tree costs at most
    NESTED_SEARCH_DIRS listings, quietly, and the report says "at least"."""
    monkeypatch.setattr(walk, "NESTED_SEARCH_DIRS", 4)
    _skill(tmp_path / "r" / "valid")
    for i in range(6):
        _skill(tmp_path / "r" / f"group{i}" / "inner")
    result = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in result.found] == ["valid"]
    assert _codes(result) == ["nested_skills"]
    assert result.diagnostics[0].message.startswith("at least ")
    assert len(result.watched_dirs) <= 4
    grouped = walk_roots([_root(tmp_path / "r", GROUPED)])  # checkouts keep the big bounds
    assert len(grouped.found) == 7
