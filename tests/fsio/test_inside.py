"""``fsio.inside``: a file of a skill is read only when its real path is inside the skill."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from lemon_core.fsio.inside import (
    OutsideFolder,
    is_inside,
    read_inside_bytes,
    read_inside_text,
    resolve_inside,
)
from lemon_core.fsio.read import FileProblem

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and FIFOs")


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    folder = tmp_path / "checkout" / "skill"
    (folder / "docs").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: skill\n---\n")
    (folder / "docs" / "guide.md").write_text("guide")
    (tmp_path / "secret").write_text("secret")
    os.symlink("docs/guide.md", folder / "inner-link.md")
    os.symlink(tmp_path / "secret", folder / "outer-link.md")
    os.symlink("/etc/passwd", folder / "passwd.md")
    os.symlink(tmp_path, folder / "up")
    os.mkfifo(folder / "fifo.md")
    return folder


def test_files_inside_are_read(skill: Path) -> None:
    assert read_inside_text(skill, "SKILL.md").startswith("---")
    assert read_inside_bytes(skill, "inner-link.md") == b"guide"
    assert read_inside_bytes(skill, Path("docs") / "guide.md") == b"guide"
    assert read_inside_bytes(skill, "missing.md") is None


def test_a_linked_skill_folder_is_judged_by_its_real_path(skill: Path, tmp_path: Path) -> None:
    os.symlink(skill, tmp_path / "linked")
    assert read_inside_bytes(tmp_path / "linked", "SKILL.md").startswith(b"---")


@pytest.mark.parametrize("relative", ["outer-link.md", "passwd.md", "up/secret", "../../secret",
                                      "/etc/passwd"])
def test_files_resolving_outside_are_refused_unread(skill: Path, relative: str) -> None:
    with pytest.raises(OutsideFolder) as caught:
        read_inside_bytes(skill, relative)
    assert caught.value.kind == "read" and "outside the skill folder" in caught.value.message
    assert not is_inside(skill, relative)


def test_the_safe_reader_still_decides_what_is_read(skill: Path) -> None:
    with pytest.raises(FileProblem, match="not a regular file"):
        read_inside_bytes(skill, "fifo.md")
    assert resolve_inside(skill, "docs") == os.path.realpath(skill / "docs")
