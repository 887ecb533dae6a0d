"""The safe reader: non-blocking, regular files only, bounded by what is read."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from lemon_core.fsio.read import (
    FileProblem,
    NotRegular,
    TooLarge,
    open_regular,
    read_bytes,
    read_head,
    read_text,
)


def _problem(path: Path, **options: object) -> FileProblem:
    started = time.monotonic()
    with pytest.raises(FileProblem) as caught:
        read_bytes(path, 1024, **options)
    assert time.monotonic() - started < 2, "a refused file must be refused at once"
    return caught.value


def test_reads_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"hello")
    assert read_bytes(tmp_path / "f") == b"hello"
    assert read_text(tmp_path / "f") == "hello"
    assert read_head(tmp_path / "f", 2) == b"he"


def test_a_missing_file_is_none_or_a_problem(tmp_path: Path) -> None:
    assert read_bytes(tmp_path / "none") is None
    assert read_text(tmp_path / "none") is None
    assert _problem(tmp_path / "none", missing_ok=False).code == "missing"


def test_a_file_as_a_folder_on_the_path_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / ".lemon").write_text("x")
    problem = _problem(tmp_path / ".lemon" / "skills.json")
    assert problem.code == "not_a_folder"
    assert "is a file" in problem.message


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    problem = _problem(tmp_path / "fifo")
    assert isinstance(problem, NotRegular) and "FIFO" in problem.message


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/stdin", "/dev/null"])
def test_a_link_to_a_device_is_refused(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    (tmp_path / "link").symlink_to(device)
    assert _problem(tmp_path / "link").code == "not_a_file"


def test_a_directory_and_a_socket_are_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    assert "folder" in _problem(tmp_path / "dir").message
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(tmp_path / "sock"))
        assert "socket" in _problem(tmp_path / "sock").message
    finally:
        server.close()


def test_a_huge_sparse_file_is_refused_at_once(tmp_path: Path) -> None:
    with open(tmp_path / "sparse", "wb") as handle:
        handle.truncate(3 * 1024**3)
    assert isinstance(_problem(tmp_path / "sparse"), TooLarge)


def test_the_bound_is_what_is_read_not_st_size() -> None:
    status = Path("/proc/self/status")  # a regular file whose st_size is 0
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("needs /proc")
    with pytest.raises(TooLarge):
        read_bytes(status, 10)
    assert read_head(status, 10) is not None and len(read_head(status, 10)) == 10


def test_a_larger_file_by_one_byte_is_too_large(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 1025)
    assert isinstance(_problem(tmp_path / "f"), TooLarge)
    (tmp_path / "g").write_bytes(b"x" * 1024)
    assert read_bytes(tmp_path / "g", 1024) == b"x" * 1024


def test_nofollow_refuses_a_symbolic_link(tmp_path: Path) -> None:
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_bytes(tmp_path / "link") == b"x"
    assert _problem(tmp_path / "link", nofollow=True).code == "symlink"


def test_a_nul_in_the_path_is_a_problem(tmp_path: Path) -> None:
    assert "NUL" in _problem(Path(str(tmp_path) + "/a\0b")).message


def test_messages_hold_no_content(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"SECRET\xff" + b"x" * 2000)
    with pytest.raises(FileProblem) as caught:
        read_text(tmp_path / "f", 10)
    assert "SECRET" not in caught.value.message
    (tmp_path / "g").write_bytes(b"SECRET\xff")
    with pytest.raises(FileProblem) as caught:
        read_text(tmp_path / "g")
    assert caught.value.code == "invalid_utf8" and "SECRET" not in caught.value.message


def test_open_regular_closes_what_it_refuses(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    for _ in range(50):
        with pytest.raises(NotRegular):
            open_regular(tmp_path / "fifo")
    (tmp_path / "f").write_text("abc")
    fd, info = open_regular(tmp_path / "f")
    os.close(fd)
    assert info.st_size == 3
    if before:
        assert len(os.listdir("/proc/self/fd")) == before
