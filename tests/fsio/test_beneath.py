"""Reaching paths beneath a root without following links (issue 17 §2 and §6): real folders,
real links, a real FIFO."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lemon_core.errors import PlantedLinkError
from lemon_core.fsio import beneath
from lemon_core.fsio.read import (
    FileProblem,
    NotRegular,
    read_bytes,
    read_head,
    read_text,
)

pytestmark = pytest.mark.skipif(not beneath.HAVE_DIR_FD, reason="needs dir_fd (POSIX)")


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """``root`` holding ``a/b/file.txt``, and an ``outside`` folder with the same layout."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    for base, text in ((root, "inside"), (outside, "OUTSIDE")):
        (base / "a" / "b").mkdir(parents=True)
        (base / "a" / "b" / "file.txt").write_text(text)
    return root, outside


# -- the walk ----------------------------------------------------------------------------------


def test_a_link_in_the_middle_is_refused_and_named(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "a").rename(root / "real-a")
    (root / "a").symlink_to(outside / "a", target_is_directory=True)
    with pytest.raises(PlantedLinkError, match="is a symbolic link") as info:
        beneath.open_dir(root, root / "a" / "b")
    assert info.value.path == str(root / "a")
    assert str(outside / "a") in str(info.value)
    with pytest.raises(PlantedLinkError):
        beneath.check(root, root / "a" / "b" / "file.txt")


def test_a_link_at_the_end_is_refused_by_check_and_kept_by_rename(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    link = root / "a" / "b" / "link.txt"
    link.symlink_to(outside / "a" / "b" / "file.txt")
    with pytest.raises(PlantedLinkError) as info:
        beneath.check(root, link)
    assert info.value.path == str(link)
    beneath.check(root, link, final=False)  # its folders are real
    beneath.rename(root, link, root / "a" / "moved")  # the link itself moves, not its target
    assert (root / "a" / "moved").is_symlink()
    assert (outside / "a" / "b" / "file.txt").read_text() == "OUTSIDE"


def test_a_dangling_link_is_refused(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "gone").symlink_to(root / "nowhere", target_is_directory=True)
    with pytest.raises(PlantedLinkError):
        beneath.make_dirs(root, root / "gone" / "x")
    assert not (root / "nowhere").exists()


@pytest.mark.parametrize("relative", ["../outside", "a/../../outside", "a//b/.."])
def test_dot_and_dotdot_components_are_refused(tree: tuple[Path, Path], relative: str) -> None:
    root, _ = tree
    with pytest.raises(beneath.OutsideRootError):
        beneath.check(root, Path(str(root) + "/" + relative))


def test_a_path_outside_the_root_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    with pytest.raises(beneath.OutsideRootError, match="is not inside"):
        beneath.write_bytes(root, outside / "x", b"no")
    assert not (outside / "x").exists()


def test_a_file_where_a_folder_should_be(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "plain").write_text("")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        beneath.make_dirs(root, root / "plain" / "x")


def test_the_root_itself_may_be_reached_through_a_link(tree: tuple[Path, Path],
                                                       tmp_path: Path) -> None:  # fmt: skip
    root, _ = tree
    alias = tmp_path / "alias"
    alias.symlink_to(root, target_is_directory=True)  # the user's own cwd below a link
    beneath.write_bytes(alias, alias / "new" / "f.json", b"{}")
    assert (root / "new" / "f.json").read_bytes() == b"{}"


# -- the operations ----------------------------------------------------------------------------


def test_write_bytes_replaces_a_planted_link_instead_of_following_it(
    tree: tuple[Path, Path]
) -> None:
    root, outside = tree
    target = outside / "a" / "b" / "file.txt"
    planted = root / "conf.json"
    planted.symlink_to(target)
    beneath.write_bytes(root, planted, b"mine", mode=0o600)
    assert target.read_text() == "OUTSIDE"
    assert not planted.is_symlink() and planted.read_bytes() == b"mine"
    assert stat.S_IMODE(planted.stat().st_mode) == 0o600
    assert sorted(p.name for p in root.iterdir()) == ["a", "conf.json"]  # no temporary left


def test_write_bytes_through_a_linked_folder_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / ".lemon").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PlantedLinkError):
        beneath.write_bytes(root, root / ".lemon" / "mcp.json", b"{}")
    assert sorted(p.name for p in outside.iterdir()) == ["a"]


def test_remove_tree_never_follows_links_inside(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    skill = root / "skill"
    (skill / "deep").mkdir(parents=True)
    (skill / "deep" / "to-outside").symlink_to(outside, target_is_directory=True)
    (skill / "file").write_text("x")
    os.chmod(skill / "deep", 0o500)  # a read-only fetched folder is still emptied
    beneath.remove_tree(root, skill)
    assert not skill.exists()
    assert (outside / "a" / "b" / "file.txt").read_text() == "OUTSIDE"
    beneath.remove_tree(root, skill)  # missing: fine


def test_remove_tree_through_a_linked_parent_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "skills").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PlantedLinkError):
        beneath.remove_tree(root, root / "skills" / "a")
    assert (outside / "a" / "b" / "file.txt").exists()


def test_rename_into_a_linked_folder_is_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    (root / "skills").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PlantedLinkError):
        beneath.rename(root, root / "a", root / "skills" / "stolen")
    assert (root / "a").is_dir() and not (outside / "stolen").exists()


# -- reading beneath a root (the served-file path) ---------------------------------------------


def test_read_beneath_reads_a_plain_file(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    assert read_text("a/b/file.txt", beneath=root) == "inside"
    assert read_head("a/b/file.txt", 3, beneath=root) == b"ins"
    assert read_bytes("a/missing.txt", beneath=root) is None


@pytest.mark.parametrize("where", ["middle", "end", "dangling", "root"])
def test_read_beneath_refuses_every_link(tree: tuple[Path, Path], tmp_path: Path,
                                         where: str) -> None:  # fmt: skip
    root, outside = tree
    relative = "a/b/file.txt"
    if where == "middle":
        os.rename(root / "a" / "b", root / "a" / "b-real")
        (root / "a" / "b").symlink_to(outside / "a" / "b", target_is_directory=True)
    elif where == "end":
        (root / "a" / "b" / "file.txt").unlink()
        (root / "a" / "b" / "file.txt").symlink_to(outside / "a" / "b" / "file.txt")
    elif where == "dangling":
        relative = "a/b/gone.txt"
        (root / "a" / "b" / "gone.txt").symlink_to(tmp_path / "nothing")
    else:  # the root's own last component swapped for a link after it was resolved
        os.rename(root, tmp_path / "root-real")
        root.symlink_to(outside, target_is_directory=True)
    with pytest.raises(FileProblem) as info:
        read_bytes(relative, beneath=root)
    assert info.value.code == "symlink" and "OUTSIDE" not in info.value.message


def test_read_beneath_does_not_block_on_a_fifo(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    os.mkfifo(root / "a" / "pipe")
    with pytest.raises(NotRegular, match="FIFO"):
        read_bytes("a/pipe", beneath=root)


@pytest.mark.parametrize("relative", ["../outside/a/b/file.txt", "a/../../outside/x",
                                      "/etc/passwd", "a/b/../b/file.txt"])
def test_read_beneath_refuses_dot_dot_and_absolute(tree: tuple[Path, Path], relative: str) -> None:
    root, _ = tree
    with pytest.raises(FileProblem) as info:
        read_bytes(relative, beneath=root)
    assert info.value.code == "outside"


def test_read_beneath_is_bounded(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    (root / "big").write_bytes(b"x" * 100)
    with pytest.raises(FileProblem, match="too large"):
        read_bytes("big", 10, beneath=root)


# -- the writers of fsio.write with a project root ---------------------------------------------


def test_update_file_in_a_project_refuses_every_planted_link(tree: tuple[Path, Path]) -> None:
    from lemon_core.fsio.write import update_file

    root, outside = tree
    theirs = outside / "mcp.json"
    theirs.write_text("{}")
    (root / ".lemon").mkdir()
    planted = root / ".lemon" / "mcp.json"
    planted.symlink_to(theirs)  # same file name: the old write-through rule let it pass
    with pytest.raises(PlantedLinkError):
        update_file(planted, lambda snap: b'{"servers": []}', root=root)
    planted.unlink()
    (root / ".lemon" / "mcp.json.lock").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PlantedLinkError, match=r"mcp\.json\.lock is a symbolic link"):
        update_file(planted, lambda snap: b'{"servers": []}', root=root)
    (root / ".lemon" / "mcp.json.lock").unlink()
    update_file(planted, lambda snap: b'{"servers": []}', root=root)
    assert planted.read_bytes() == b'{"servers": []}' and theirs.read_text() == "{}"
    assert sorted(p.name for p in outside.iterdir()) == ["a", "mcp.json"]
    assert sorted(p.name for p in (root / ".lemon").iterdir()) == ["mcp.json"]


def test_update_file_outside_a_project_still_writes_through_a_dotfile_link(
    tree: tuple[Path, Path]
) -> None:
    from lemon_core.fsio.write import update_file

    root, outside = tree
    target = outside / "mcp.json"
    target.write_text("{}")
    link = root / "mcp.json"
    link.symlink_to(target)
    update_file(link, lambda snap: b'{"x": 1}')  # no root: the user's own file
    assert link.is_symlink() and target.read_bytes() == b'{"x": 1}'
