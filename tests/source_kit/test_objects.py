"""Objects read by their header first and streamed: loose, packed, deltified and in memory,
on real repositories built with dulwich (and packed by dulwich or, for deltas, by git)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tracemalloc
import zlib
from pathlib import Path

import pytest

from lemon_core.source_kit.limits import FetchTooLarge
from lemon_core.source_kit.objects import (
    copy_blob,
    load,
    locate,
    object_size,
    read_small,
)
from lemon_core.source_kit.transport import GitSourceError
from tests.gitserver import Zeros, build_repo

pytestmark = pytest.mark.integration  # starts processes or loopback servers

MIB = 1024 * 1024


def _blob_id(repo, path: str) -> bytes:  # type: ignore[no-untyped-def]
    tree = repo.object_store[repo[repo.refs[b"refs/heads/main"]].tree]
    return tree.lookup_path(repo.object_store.__getitem__, path.encode())[1]  # type: ignore[no-any-return]


def _copy(store, sha: bytes, dest: Path, cap: int) -> int:  # type: ignore[no-untyped-def]
    fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        return copy_blob(store, sha, fd, cap, "the file x")
    finally:
        os.close(fd)


def test_a_loose_blob_is_measured_from_its_header_and_streamed(tmp_path: Path) -> None:
    repo, _ = build_repo(tmp_path / "r", {"big.bin": Zeros(16 * MIB), "small.txt": "hello"})
    big = _blob_id(repo, "big.bin")
    where = locate(repo.object_store, big)
    assert (where.kind, where.type_num, where.size) == ("loose", 3, 16 * MIB)
    tracemalloc.start()
    try:
        assert _copy(repo.object_store, big, tmp_path / "out", 32 * MIB) == 16 * MIB
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MIB  # 64 KiB chunks, never the 16 MiB
    assert (tmp_path / "out").stat().st_size == 16 * MIB
    assert read_small(repo.object_store, _blob_id(repo, "small.txt"), 100, "s") == b"hello"


def test_over_the_cap_nothing_is_inflated_or_written(tmp_path: Path) -> None:
    repo, _ = build_repo(tmp_path / "r", {"big.bin": Zeros(4 * MIB)})
    big = _blob_id(repo, "big.bin")
    with pytest.raises(FetchTooLarge, match=r"the file x is 4 MiB \(over the 1 MiB"):
        _copy(repo.object_store, big, tmp_path / "out", MIB)
    assert (tmp_path / "out").stat().st_size == 0
    with pytest.raises(FetchTooLarge, match="over the 1 KiB"):
        read_small(repo.object_store, big, 1024, "the link y")
    with pytest.raises(FetchTooLarge):
        load(repo.object_store, big, 1024)


def test_packed_objects_are_measured_and_streamed(tmp_path: Path) -> None:
    repo, _ = build_repo(tmp_path / "r", {"big.bin": Zeros(8 * MIB), "small.txt": "hi"})
    repo.object_store.pack_loose_objects()
    big = _blob_id(repo, "big.bin")
    where = locate(repo.object_store, big)
    assert (where.kind, where.size, where.delta) == ("packed", 8 * MIB, False)
    tracemalloc.start()
    try:
        assert _copy(repo.object_store, big, tmp_path / "out", 8 * MIB) == 8 * MIB
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MIB
    with pytest.raises(FetchTooLarge, match="8 MiB"):
        _copy(repo.object_store, big, tmp_path / "out2", MIB)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to write deltas")
def test_a_deltified_object_is_measured_by_the_size_its_delta_makes(tmp_path: Path) -> None:
    from tests.gitserver import commit

    base = "line of text that repeats\n" * 40_000  # about 1 MiB
    repo, _ = build_repo(tmp_path / "r", {"doc.txt": base})
    commit(repo, {"doc.txt": base + "one more line\n"})
    subprocess.run(["git", "-C", str(tmp_path / "r"), "repack", "-adq", "--window=10",
                    "--depth=10"], check=True, capture_output=True)
    repo.object_store.close()
    from dulwich.repo import Repo

    repo = Repo(str(tmp_path / "r"))
    previous = repo[repo[repo.refs[b"refs/heads/main"]].parents[0]]
    old = repo.object_store[previous.tree][b"doc.txt"][1]
    deltas = [locate(repo.object_store, s).delta for s in (old, _blob_id(repo, "doc.txt"))]
    assert any(deltas), "git wrote no delta"
    for sha in (old, _blob_id(repo, "doc.txt")):
        assert object_size(repo.object_store, sha)[1] == len(repo.object_store[sha].data)
        out = tmp_path / f"out-{sha.decode()[:8]}"
        assert _copy(repo.object_store, sha, out, 2 * MIB) == out.stat().st_size
        with pytest.raises(FetchTooLarge):
            _copy(repo.object_store, sha, tmp_path / f"small-{sha.decode()[:8]}", 1000)
    repo.close()


def _plant_loose(objects: Path, header: bytes, body: bytes, name: str | None = None) -> bytes:
    raw = header + body
    sha = name or hashlib.sha1(raw).hexdigest()
    (objects / sha[:2]).mkdir(exist_ok=True)
    (objects / sha[:2] / sha[2:]).write_bytes(zlib.compress(raw))
    return sha.encode()


def test_a_lying_or_damaged_loose_object_is_refused(tmp_path: Path) -> None:
    repo, _ = build_repo(tmp_path / "r", {"a.txt": "a"})
    objects = Path(repo.object_store.path)
    liar = _plant_loose(objects, b"blob 10\0", b"x" * MIB, name="ab" * 20)
    with pytest.raises(FetchTooLarge, match="inflates past its header"):
        _copy(repo.object_store, liar, tmp_path / "o1", 64 * MIB)
    forged = _plant_loose(objects, b"blob 5\0", b"12345", name="cd" * 20)
    with pytest.raises(GitSourceError, match="do not match its id"):
        _copy(repo.object_store, forged, tmp_path / "o2", 64 * MIB)
    junk = objects / "ef" / ("ef" * 19)
    junk.parent.mkdir()
    junk.write_bytes(b"not zlib at all")
    with pytest.raises(GitSourceError, match="damaged loose object"):
        locate(repo.object_store, b"ef" * 20)
    with pytest.raises(KeyError):
        locate(repo.object_store, b"12" * 20)


def test_an_object_file_that_is_not_a_regular_file_is_never_opened(tmp_path: Path) -> None:
    repo, _ = build_repo(tmp_path / "r", {"a.txt": "a"})
    objects = Path(repo.object_store.path)
    fifo = objects / "aa" / ("aa" * 19)
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(GitSourceError, match="cannot read the repository's object store"):
        locate(repo.object_store, b"aa" * 20)


def test_an_in_memory_store_answers_from_its_objects(tmp_path: Path) -> None:
    from dulwich.objects import Blob
    from dulwich.repo import MemoryRepo

    repo = MemoryRepo()
    blob = Blob.from_string(b"x" * 3000)
    repo.object_store.add_object(blob)
    assert locate(repo.object_store, blob.id).kind == "memory"
    assert object_size(repo.object_store, blob.id) == (3, 3000)
    assert _copy(repo.object_store, blob.id, tmp_path / "m", 3000) == 3000
    with pytest.raises(FetchTooLarge):
        _copy(repo.object_store, blob.id, tmp_path / "m2", 2999)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to write deltas")
def test_a_small_file_stored_as_a_change_to_a_large_object_is_refused(tmp_path: Path) -> None:
    """dulwich builds a delta's base whole: a file under the cap whose base (outside the
    chosen folder, say) is over it is refused before either is inflated."""
    from dulwich.repo import Repo

    lines = [f"line {n:07d} of a long text that git will store as a delta\n" for n in range(30_000)]
    big = "".join(lines)  # about 1.7 MiB
    small = "".join(lines[:20_000])  # about 1.1 MiB, a prefix of it
    build_repo(tmp_path / "r", {"skill/doc.txt": small, "outside/big.txt": big})
    subprocess.run(["git", "-C", str(tmp_path / "r"), "repack", "-adq", "-f", "--window=10"],
                   check=True, capture_output=True)
    repo = Repo(str(tmp_path / "r"))
    try:
        sha = _blob_id(repo, "skill/doc.txt")
        where = locate(repo.object_store, sha)
        assert where.delta and where.size == len(small) and where.source_size == len(big)
        with pytest.raises(FetchTooLarge, match=r"stored as a change to an object of 2 MiB"):
            _copy(repo.object_store, sha, tmp_path / "out", int(1.5 * MIB))
        assert (tmp_path / "out").stat().st_size == 0
        assert _copy(repo.object_store, sha, tmp_path / "ok", 2 * MIB) == len(small)
        assert (tmp_path / "ok").read_text() == small
    finally:
        repo.close()
