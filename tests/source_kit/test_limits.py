"""FetchLimits: a pack that would inflate too far, or a tree too large, is refused before it
is unpacked or written."""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from lemon_core.source_kit import fetch_tree
from lemon_core.source_kit.limits import FetchLimits, FetchTooLarge, check_pack
from tests.gitserver import GitServer, build_repo, commit

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
