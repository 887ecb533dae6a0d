"""Safe, bounded unpacking of skill archives: good archives unpack, hostile ones are refused."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import zipfile

import pytest

from lemon_core.fsio.tree import TreeLimits
from lemon_core.source_kit.unpack import UnpackRefused, unpack


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return raw.getvalue()


def _file(name: str, data: bytes, mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def _special(name: str, kind: bytes, target: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def test_a_tar_gz_unpacks_with_folders_and_the_executable_bit(tmp_path):
    data = _tar([_file("SKILL.md", b"---\nname: a\n---\n"),
                 _file("scripts/run.sh", b"echo hi\n", 0o755)])
    assert unpack(data, tmp_path / "out") == 2
    assert (tmp_path / "out" / "SKILL.md").read_bytes().startswith(b"---")
    assert os.stat(tmp_path / "out" / "scripts" / "run.sh").st_mode & stat.S_IXUSR


def test_a_zip_unpacks(tmp_path):
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        archive.writestr("SKILL.md", "hello")
        archive.writestr("references/a.md", "ref")
    assert unpack(raw.getvalue(), tmp_path / "out") == 2
    assert (tmp_path / "out" / "references" / "a.md").read_text() == "ref"


@pytest.mark.parametrize(("member", "why"), [
    (_special("evil", tarfile.SYMTYPE, "/etc/passwd"), "a link"),
    (_special("evil", tarfile.SYMTYPE, "inside.md"), "a link"),
    (_special("evil", tarfile.LNKTYPE, "SKILL.md"), "a link"),
    (_special("dev", tarfile.CHRTYPE), "a special file"),
    (_special("fifo", tarfile.FIFOTYPE), "a special file"),
    (_file("/etc/cron.d/x", b"x"), "absolute"),
    (_file("../../outside", b"x"), "'..'"),
    (_file("a/../../outside", b"x"), "'..'"),
    (_file("bad\x1b[2Jname", b"x"), "U+001B"),
])
def test_hostile_members_refuse_the_whole_archive(tmp_path, member, why):
    data = _tar([_file("SKILL.md", b"x"), member])
    with pytest.raises(UnpackRefused, match="refused") as info:
        unpack(data, tmp_path / "out")
    assert why in str(info.value)
    assert not (tmp_path / "outside").exists()
    assert not (tmp_path.parent / "outside").exists()


def test_a_zip_symlink_is_refused(tmp_path):
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w") as archive:
        link = zipfile.ZipInfo("evil")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    with pytest.raises(UnpackRefused, match="a link"):
        unpack(raw.getvalue(), tmp_path / "out")


def test_caps_are_checked_from_the_headers(tmp_path):
    limits = TreeLimits(max_entries=3, max_file_bytes=100, max_total_bytes=150, max_depth=3)
    with pytest.raises(UnpackRefused, match="at most 100"):
        unpack(_tar([_file("big", b"x" * 101)]), tmp_path / "a", limits=limits)
    with pytest.raises(UnpackRefused, match="past 150"):
        unpack(_tar([_file("a", b"x" * 80), _file("b", b"x" * 80)]), tmp_path / "b",
               limits=limits)
    with pytest.raises(UnpackRefused, match="more than 3"):
        unpack(_tar([_file(str(i), b"x") for i in range(4)]), tmp_path / "c", limits=limits)
    with pytest.raises(UnpackRefused, match="deeper"):
        unpack(_tar([_file("a/b/c/d/e", b"x")]), tmp_path / "d", limits=limits)


def test_a_gzip_bomb_stops_at_the_total_cap(tmp_path):
    limits = TreeLimits(max_file_bytes=1024 * 1024, max_total_bytes=1024 * 1024)
    bomb = _tar([_file(f"f{i}", b"\0" * (512 * 1024)) for i in range(4)])
    assert len(bomb) < 20_000
    with pytest.raises(UnpackRefused, match="past"):
        unpack(bomb, tmp_path / "out", limits=limits)


def test_a_duplicate_member_and_garbage_are_refused(tmp_path):
    with pytest.raises(UnpackRefused, match="twice"):
        unpack(_tar([_file("SKILL.md", b"a"), _file("SKILL.md", b"b")]), tmp_path / "a")
    with pytest.raises(UnpackRefused, match="neither"):
        unpack(b"not an archive at all", tmp_path / "b")
    with pytest.raises(UnpackRefused, match="does not open"):
        unpack(b"\x1f\x8b" + b"\0" * 40, tmp_path / "c")
