"""fsio.copy.copy_tree: a faithful, bounded copy that never follows a link."""

from __future__ import annotations

import os

import pytest

from lemon_core.fsio.copy import CopyRefused, copy_tree
from lemon_core.fsio.tree import TreeLimits


@pytest.fixture
def src(tmp_path):
    root = tmp_path / "src"
    (root / "a" / "b").mkdir(parents=True)
    (root / "SKILL.md").write_text("x")
    (root / "a" / "b" / "run.sh").write_text("echo\n")
    (root / "a" / "b" / "run.sh").chmod(0o750)
    (root / "data").symlink_to("/etc/passwd")
    return root


def test_files_folders_links_and_the_exec_bit(src, tmp_path):
    report = copy_tree(src, tmp_path / "out")
    out = tmp_path / "out"
    assert (report.files, report.links, report.bytes) == (2, 1, 6)
    assert os.readlink(out / "data") == "/etc/passwd"
    assert oct(os.stat(out / "a" / "b" / "run.sh").st_mode & 0o777) == "0o755"
    assert oct(os.stat(out / "SKILL.md").st_mode & 0o777) == "0o644"


def test_skip_names_at_every_level(src, tmp_path):
    (src / ".git").mkdir()
    (src / "a" / ".git").write_text("gitdir: x")
    report = copy_tree(src, tmp_path / "out")
    assert report.skipped == (".git", "a/.git")
    assert not (tmp_path / "out" / ".git").exists()


def test_the_destination_must_be_empty(src, tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("")
    with pytest.raises(CopyRefused, match="is not empty"):
        copy_tree(src, tmp_path / "out")


@pytest.mark.parametrize(("limits", "message"), [
    (TreeLimits(max_entries=3), "more than 3 files and folders"),
    (TreeLimits(max_depth=2), "a/b: folders nest deeper than 2 levels"),
    (TreeLimits(max_file_bytes=4), "a/b/run.sh: 5 bytes"),
    (TreeLimits(max_total_bytes=5), "more than 5 bytes in all")])
def test_caps(src, tmp_path, limits, message):
    with pytest.raises(CopyRefused, match=message):
        copy_tree(src, tmp_path / "out", limits=limits)


def test_an_unsafe_name_is_refused(src, tmp_path):
    (src / "evil\x1b]0;x\x07").write_text("")
    with pytest.raises(CopyRefused, match="unsafe file name"):
        copy_tree(src, tmp_path / "out")


def test_a_socket_is_refused_without_opening_it(src, tmp_path):
    import socket

    sock = socket.socket(socket.AF_UNIX)
    path = src / "s"
    try:
        sock.bind(str(path))
    except OSError:  # pragma: no cover - a path too long for AF_UNIX
        pytest.skip("cannot bind a socket here")
    try:
        with pytest.raises(CopyRefused, match="s: a socket"):
            copy_tree(src, tmp_path / "out")
    finally:
        sock.close()


def test_a_source_that_is_not_a_folder(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(CopyRefused, match="is not a folder"):
        copy_tree(tmp_path / "f", tmp_path / "out")


def test_a_file_is_streamed_not_read_whole(tmp_path):
    """issue 17 §4: a local source's file is copied 1 MiB at a time (it was read whole)."""
    import tracemalloc

    src = tmp_path / "big"
    src.mkdir()
    (src / "SKILL.md").write_text("x")
    with open(src / "data.bin", "wb") as f:
        f.write(os.urandom(1024) * (8 * 1024))  # 8 MiB, under the 10 MiB a file may hold
    tracemalloc.start()
    try:
        report = copy_tree(src, tmp_path / "dest")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.files == 2 and report.bytes == 8 * 1024 * 1024 + 1
    assert (tmp_path / "dest" / "data.bin").read_bytes() == (src / "data.bin").read_bytes()
    assert peak < 3 * 1024 * 1024
