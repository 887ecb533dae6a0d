"""``fsio.inside``: a file of a skill is read only when its real path is inside the skill."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from lemon_core.errors import LemonError
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


# -- issue 17 §6: a swap while lemon reads fails closed --------------------------------------


def _swap_after_resolving(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    """Run ``swap`` right after the path is resolved and checked, before it is opened: the
    window a process flipping ``references/`` hits by chance, made certain."""
    from lemon_core.fsio import inside

    real = inside.resolve_inside

    def resolve_then_swap(folder: object, relative: object) -> str:
        target = real(folder, relative)  # type: ignore[arg-type]
        swap()
        return target

    monkeypatch.setattr(inside, "resolve_inside", resolve_then_swap)


@pytest.fixture
def racing(tmp_path: Path) -> tuple[Path, Path]:
    """A skill with ``references/a.md`` and ``b.md`` (INSIDE), and an outside folder with the
    same names (OUTSIDE)."""
    skill, outside = tmp_path / "skill", tmp_path / "outside"
    (skill / "references").mkdir(parents=True)
    outside.mkdir()
    (skill / "SKILL.md").write_text("---\nname: skill\ndescription: Use when racing.\n---\n")
    for base, text in ((skill, "INSIDE"), (outside, "OUTSIDE")):
        (base / "b.md").write_text(text)
        (base / "references" if base == skill else base).joinpath("a.md").write_text(text)
    return skill, outside


def _flip_folder(skill: Path, outside: Path) -> None:
    os.rename(skill / "references", skill / ".aside")
    os.symlink(outside, skill / "references")


def _flip_file(skill: Path, outside: Path) -> None:
    os.symlink(outside / "b.md", skill / ".link")
    os.replace(skill / ".link", skill / "b.md")


@pytest.mark.parametrize(("relative", "flip"), [("references/a.md", _flip_folder),
                                                ("b.md", _flip_file)])
def test_a_swap_between_the_check_and_the_open_fails_closed(
    racing: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, relative: str,
    flip: Callable[[Path, Path], None]
) -> None:
    skill, outside = racing
    _swap_after_resolving(monkeypatch, lambda: flip(skill, outside))
    with pytest.raises(FileProblem) as info:
        read_inside_bytes(skill, relative)
    assert info.value.code == "symlink" and "OUTSIDE" not in info.value.message


@pytest.mark.slow
def test_a_flipping_folder_never_serves_outside_bytes(racing: tuple[Path, Path],
                                                      tmp_path: Path) -> None:  # fmt: skip
    """A thread flips ``references/`` (a real folder / a link out) and ``b.md`` (a file / a
    link out) while both servers' read functions read them: zero outside reads."""
    from lemon_core.context import LemonContext
    from lemon_core.mcp.servers.lazy_backend import read_skill_text
    from lemon_core.skills.agent import read_skill

    skill, outside = racing
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".agents" / "skills").mkdir(parents=True)
    (project / ".agents" / "skills" / "skill").symlink_to(skill, target_is_directory=True)
    ctx = LemonContext(cwd=project, home=tmp_path / "home", platform="linux",
                       env={"HOME": str(tmp_path / "home"), "LEMON_BUILTIN_SKILLS": "0",
                            "LEMON_CACHE_DIR": str(tmp_path / "cache")})
    stop = threading.Event()

    def flipper() -> None:
        while not stop.is_set():
            _flip_folder(skill, outside)
            _flip_file(skill, outside)
            os.unlink(skill / "references")
            os.rename(skill / ".aside", skill / "references")
            (skill / ".real").write_text("INSIDE")
            os.replace(skill / ".real", skill / "b.md")

    readers: list[Callable[[str], str]] = [
        lambda rel: read_skill_text(str(skill), rel)[0],
        lambda rel: read_skill("skill", ctx, view="file", file=rel).content,
    ]
    counts = {"outside": 0, "inside": 0, "refused": 0}
    thread = threading.Thread(target=flipper)
    thread.start()
    try:
        for index in range(1200):
            relative = ("references/a.md", "b.md")[index % 2]
            try:
                text = readers[(index // 2) % 2](relative)
            except (FileProblem, LemonError):  # refused or missing mid-flip: fails closed
                counts["refused"] += 1
                continue
            counts["outside" if "OUTSIDE" in text else "inside"] += 1
    finally:
        stop.set()
        thread.join()
    assert counts["outside"] == 0, counts
    assert counts["inside"] > 0, counts
