"""FetchLimits: a pack that would inflate too far, or a tree too large, is refused before it
is unpacked or written."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lemon_core.source_kit import fetch_tree
from lemon_core.source_kit.limits import FetchLimits, FetchTooLarge, check_pack
from tests.gitserver import GitServer, build_repo, commit

pytestmark = pytest.mark.integration  # starts processes or loopback servers

SKILL = "---\nname: demo\ndescription: Use when testing.\n---\n"
MIB = 1024 * 1024


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server


def _serve(tmp_path: Path, server: GitServer, files: dict[str, object]) -> str:
    repo, _ = build_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    return server.add("o/r.git", repo)


@pytest.mark.parametrize(("files", "limits", "message"), [
    ({"SKILL.md": SKILL, "zeros.bin": b"\0" * (4 * MIB)},
     FetchLimits(max_object_bytes=MIB), "inflates past 1 MiB"),
    ({"SKILL.md": SKILL, **{f"part{n}.bin": bytes([n]) * (600 * 1024) for n in range(3)}},
     FetchLimits(max_total_bytes=MIB), "inflates past 1 MiB"),
    ({"SKILL.md": SKILL, **{f"f{n}.txt": str(n) for n in range(10)}},
     FetchLimits(max_objects=5), "sends 13 objects"),
    ({"SKILL.md": SKILL, "noise.bin": os.urandom(64 * 1024)},
     FetchLimits(max_pack_bytes=16 * 1024), "sends more than 16 KiB"),
    ({"SKILL.md": SKILL, **{f"d/f{n}.txt": str(n) for n in range(30)}},
     FetchLimits(max_entries=10), "more than 10 files and folders"),
])
def test_over_a_limit_is_refused_and_nothing_written(tmp_path: Path, git_server: GitServer,
                                                     files, limits, message) -> None:
    url = _serve(tmp_path, git_server, files)
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(FetchTooLarge, match=message):
        fetch_tree(url, None, dest, limits=limits)
    assert os.listdir(dest) == []


def test_within_the_limits_the_fetch_succeeds(tmp_path: Path, git_server: GitServer) -> None:
    repo, _ = build_repo(tmp_path / "r", {"SKILL.md": SKILL, "zeros.bin": b"\0" * MIB})
    for n in range(3):  # history, so the full fetch carries deltas
        commit(repo, {"SKILL.md": SKILL, "zeros.bin": b"\0" * MIB + bytes([n])})
    url = git_server.add("o/r.git", repo)
    dest = tmp_path / "dest"
    dest.mkdir()
    first = next(iter(repo.get_walker())).commit.parents[0].decode()
    result = fetch_tree(url, first, dest, limits=FetchLimits(max_object_bytes=2 * MIB))
    assert not result.shallow and (dest / "zeros.bin").stat().st_size == MIB + 1


def test_check_pack_measures_a_lying_header() -> None:
    # an object whose header says 3 bytes but whose stream inflates to 2 MiB
    body = zlib.compress(b"x" * (2 * MIB))
    pack = b"PACK" + (2).to_bytes(4, "big") + (1).to_bytes(4, "big") + bytes([0x33]) + body
    with pytest.raises(FetchTooLarge):
        check_pack(io.BytesIO(pack), FetchLimits(max_object_bytes=MIB))
    check_pack(io.BytesIO(pack[:40]), FetchLimits(max_object_bytes=MIB))  # cut: dulwich's to say


# -- issue 17 §4: every transport is bounded, and only the chosen folder is read ---------------

GOOD = "---\nname: good\ndescription: Use when testing bounded fetches.\n---\nBody.\n"


def _unreadable(repo, data: bytes) -> None:  # type: ignore[no-untyped-def]
    """Put a folder where the loose object of ``data`` is: reading it fails at once."""
    from dulwich.objects import Blob

    sha = Blob.from_string(data).id.decode()
    path = Path(repo.object_store.path) / sha[:2] / sha[2:]
    path.unlink()
    path.mkdir()


def test_a_file_url_reads_only_the_chosen_folder(tmp_path: Path) -> None:
    """A huge blob and an unreadable object outside the folder: never opened, never in
    memory (the old copy read every object of the commit, and failed on the unreadable one)."""
    import tracemalloc

    from tests.gitserver import Zeros

    repo, _ = build_repo(tmp_path / "r", {
        "skills/good/SKILL.md": GOOD, "skills/good/notes.md": "notes",
        "big/huge.bin": Zeros(48 * MIB), "big/other.bin": Zeros(8 * MIB + 1),
        "big/broken.txt": "unreadable"})
    _unreadable(repo, b"unreadable")
    dest = tmp_path / "dest"
    dest.mkdir()
    tracemalloc.start()
    try:
        result = fetch_tree(f"file://{tmp_path / 'r'}", None, dest, subdirectory="skills/good",
                            limits=FetchLimits(max_object_bytes=MIB, max_total_bytes=2 * MIB))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sorted(os.listdir(dest)) == ["SKILL.md", "notes.md"]
    assert result.files == 2
    assert peak < 2 * MIB


@pytest.mark.parametrize("transport", ["file", "http"])
def test_a_file_over_the_cap_inside_the_folder_is_refused_before_anything_is_written(
        tmp_path: Path, git_server: GitServer, transport: str) -> None:
    from tests.gitserver import Zeros

    repo, _ = build_repo(tmp_path / "r", {"skills/good/SKILL.md": GOOD,
                                          "skills/good/a.txt": "first in order",
                                          "skills/good/zeros.bin": Zeros(4 * MIB)})
    url = (f"file://{tmp_path / 'r'}" if transport == "file"
           else git_server.add("o/r.git", repo))
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(FetchTooLarge, match="1 MiB") as info:
        fetch_tree(url, None, dest, subdirectory="skills/good",
                   limits=FetchLimits(max_object_bytes=MIB))
    if transport == "file":
        assert "the file skills/good/zeros.bin is 4 MiB (over the 1 MiB" in str(info.value)
    assert os.listdir(dest) == []  # not even the files planned before it


def test_files_over_the_total_cap_together_are_refused_over_a_file_url(tmp_path: Path) -> None:
    files = {"skills/good/SKILL.md": GOOD,
             **{f"skills/good/part{n}.bin": bytes([n + 1]) * (600 * 1024) for n in range(3)}}
    build_repo(tmp_path / "r", files)
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(FetchTooLarge, match="come to more than 1 MiB"):
        fetch_tree(f"file://{tmp_path / 'r'}", None, dest, subdirectory="skills/good",
                   limits=FetchLimits(max_total_bytes=MIB))
    assert os.listdir(dest) == []


@pytest.mark.slow
def test_over_http_the_pack_goes_to_disk_not_memory(tmp_path: Path,
                                                     git_server: GitServer) -> None:
    """24 MiB of blobs outside the folder, under the pack caps: the fetch holds about one
    object at a time (the old in-memory repository held all of them)."""
    import tracemalloc

    from tests.gitserver import Zeros

    files: dict[str, object] = {"skills/good/SKILL.md": GOOD}
    files.update({f"big/z{n}.bin": Zeros(3 * MIB + n) for n in range(8)})
    repo, _ = build_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    url = git_server.add("o/r.git", repo)
    dest = tmp_path / "dest"
    dest.mkdir()
    tracemalloc.start()  # the server's thread is counted too: it packs one object at a time
    try:
        fetch_tree(url, None, dest, subdirectory="skills/good")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert os.listdir(dest) == ["SKILL.md"]
    assert peak < 18 * MIB  # before: 28 MiB


def test_a_short_commit_id_is_found_without_reading_blobs(tmp_path: Path) -> None:
    repo, first = build_repo(tmp_path / "r", {"skills/good/SKILL.md": GOOD,
                                              "big/broken.txt": "unreadable"})
    commit(repo, {"skills/good/SKILL.md": GOOD + "v2\n", "big/broken.txt": "unreadable"})
    _unreadable(repo, b"unreadable")
    dest = tmp_path / "dest"
    dest.mkdir()
    result = fetch_tree(f"file://{tmp_path / 'r'}", first[:8], dest, subdirectory="skills/good")
    assert result.commit == first
    assert (dest / "SKILL.md").read_text() == GOOD


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to write deltas")
def test_files_stored_as_changes_to_larger_objects_are_fetched(tmp_path: Path) -> None:
    """Published repositories are packed by git, which stores a file as a change to a similar,
    often larger, one (a LICENSE beside a longer LICENSE, a tiny file beside a bigger one, a
    link beside a longer link): each is fetched whole, its base held to the fetch's object cap,
    not to the file's own size (anthropics/skills' LICENSE.txt was refused as 'a change to an
    object of 11 KiB, over the 11 KiB a fetched file may hold')."""
    licence = "".join(f"clause {n}: the software is provided as is\n" for n in range(300))
    skill = "---\nname: good\ndescription: Use when testing deltas.\n---\nBody.\n"
    build_repo(tmp_path / "r", {
        "skills/good/SKILL.md": skill,
        "skills/good/LICENSE.txt": licence[: len(licence) - 400],
        "skills/good/tiny.md": licence[:600],
        "skills/other/LICENSE.txt": licence,
        "skills/other/SKILL.md": skill.replace("good", "other") + "More text.\n" * 40,
    })
    subprocess.run(["git", "-C", str(tmp_path / "r"), "repack", "-adq", "-f", "--window=50",
                    "--depth=50"], check=True, capture_output=True)
    from dulwich.repo import Repo

    from lemon_core.source_kit.objects import locate

    with Repo(str(tmp_path / "r")) as repo:
        tree = repo.object_store[repo[repo.refs[b"refs/heads/main"]].tree]
        ids = [tree.lookup_path(repo.object_store.__getitem__, path)[1]
               for path in (b"skills/good/LICENSE.txt", b"skills/good/tiny.md")]
        deltas = [locate(repo.object_store, sha) for sha in ids]
    assert any(w.delta and w.source_size > w.size for w in deltas), "git wrote no such delta"
    dest = tmp_path / "dest"
    dest.mkdir()
    fetch_tree(f"file://{tmp_path / 'r'}", None, dest, subdirectory="skills/good")
    assert (dest / "LICENSE.txt").read_text() == licence[: len(licence) - 400]
    assert (dest / "tiny.md").read_text() == licence[:600]
