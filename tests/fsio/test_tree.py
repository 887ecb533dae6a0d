"""fsio.tree: the one safe scan of a skill folder and its bundle hash, on real files, links,
hard links, FIFOs and sparse files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lemon_core.fsio.read import FileProblem
from lemon_core.fsio.tree import DEFAULT_LIMITS, TreeLimits, bundle_hash, scan_tree


def _skill(root: Path) -> Path:
    (root / "scripts").mkdir(parents=True)
    (root / "SKILL.md").write_text("---\nname: s\n---\nbody\n")
    (root / "scripts" / "run.sh").write_text("echo hi\n")
    os.chmod(root / "scripts" / "run.sh", 0o755)
    return root


def _codes(root: Path, limits: TreeLimits = DEFAULT_LIMITS) -> list[tuple[str, str]]:
    return [(p.path, p.code) for p in scan_tree(root, limits).problems]


def test_a_plain_skill_scans_clean(tmp_path: Path) -> None:
    scan = scan_tree(_skill(tmp_path / "s"))
    assert scan.problems == () and scan.complete
    assert [(e.path, e.kind) for e in scan.entries] == [
        ("SKILL.md", "file"), ("scripts", "dir"), ("scripts/run.sh", "file")]
    assert [e.path for e in scan.files if e.executable] == ["scripts/run.sh"]
    assert scan.total_bytes == sum(e.size for e in scan.files)


def test_links_inside_are_kept_and_links_out_refused(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    (tmp_path / "sibling").mkdir()
    (root / "inside").symlink_to("scripts/run.sh")
    (root / "dangling-inside").symlink_to("missing.md")
    (root / "passwd").symlink_to("/etc/passwd")
    (root / "sibling").symlink_to("../sibling")
    (root / "chain").symlink_to("inside-to-out")
    (root / "inside-to-out").symlink_to("/")
    problems = _codes(root)
    assert sorted(problems) == [("chain", "escaping_link"), ("inside-to-out", "escaping_link"),
                                ("passwd", "escaping_link"), ("sibling", "escaping_link")]
    entry = next(e for e in scan_tree(root).entries if e.path == "inside")
    assert entry.kind == "symlink" and entry.inside and entry.link_target == "scripts/run.sh"


def test_a_link_to_the_root_of_a_prefix_twin_is_outside(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    (tmp_path / "s-twin").mkdir()
    (root / "twin").symlink_to(tmp_path / "s-twin")
    assert _codes(root) == [("twin", "escaping_link")]


def test_hard_links_fifos_and_sockets_are_refused(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    os.link(root / "SKILL.md", tmp_path / "elsewhere")
    os.mkfifo(root / "pipe")
    import socket

    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(root / "sock"))
        assert sorted(_codes(root)) == [("SKILL.md", "hard_link"), ("pipe", "special_file"),
                                        ("sock", "special_file")]
    finally:
        sock.close()


def test_caps_on_size_count_and_depth(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    with open(root / "sparse.bin", "wb") as handle:  # 1 GB, no blocks on disk, never read
        handle.truncate(1 << 30)
    codes = _codes(root)
    assert ("sparse.bin", "file_too_large") in codes and (".", "tree_too_large") in codes
    os.unlink(root / "sparse.bin")
    (root / "many").mkdir()
    for i in range(30):
        (root / f"f{i:02}").write_text("x")
        (root / "many" / f"f{i:02}").write_text("x")
    small = TreeLimits(max_entries=10)
    scan = scan_tree(root, small)
    assert not scan.complete and len(scan.entries) == 10
    assert [p.code for p in scan.problems] == ["too_many_entries"]  # said once
    deep = root / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    assert ("a/b/c", "too_deep") in _codes(root, TreeLimits(max_depth=3))


@pytest.mark.parametrize("name", ["bad\x1bname", "back\\slash", "trailing.", "trailing ",
                                  "CON", "nul.txt", "com1", "a:b", "cafe\u0301.md"])
def test_unsafe_names_are_refused(tmp_path: Path, name: str) -> None:
    root = _skill(tmp_path / "s")
    (root / name).write_text("x")
    assert _codes(root) == [(name, "unsafe_name")]


def test_an_undecodable_name_is_refused(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    with open(os.path.join(os.fsencode(root), b"bad\xff.md"), "wb") as handle:
        handle.write(b"x")
    assert [code for _, code in _codes(root)] == ["unsafe_name"]


def test_names_that_collide_on_other_file_systems(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    (root / "skill.md").write_text("other")
    (root / "\uff33\uff2b\uff29\uff2c\uff2c.md").write_text("fullwidth")  # NFC-stable
    assert sorted(_codes(root)) == [("skill.md", "name_collision")]


def test_the_bundle_hash_is_of_content_not_of_place_or_umask(tmp_path: Path) -> None:
    first = _skill(tmp_path / "one")
    digest = bundle_hash(first, scan_tree(first).entries)
    assert digest.startswith("sha256:") and len(digest) == 7 + 64
    second = tmp_path / "two"
    shutil.copytree(first, second, symlinks=True)
    os.chmod(second / "SKILL.md", 0o600)  # permission bits other than "executable" ignored
    (second / "empty-folder").mkdir()  # folders do not count
    assert bundle_hash(second, scan_tree(second).entries) == digest
    os.chmod(second / "scripts" / "run.sh", 0o644)
    assert bundle_hash(second, scan_tree(second).entries) != digest


def test_every_byte_path_and_link_target_counts(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    seen = {bundle_hash(root, scan_tree(root).entries)}
    (root / "SKILL.md").write_text("---\nname: s\n---\nbody!\n")
    seen.add(bundle_hash(root, scan_tree(root).entries))
    os.rename(root / "scripts" / "run.sh", root / "scripts" / "go.sh")
    seen.add(bundle_hash(root, scan_tree(root).entries))
    (root / "l").symlink_to("SKILL.md")
    seen.add(bundle_hash(root, scan_tree(root).entries))
    os.unlink(root / "l")
    (root / "l").symlink_to("scripts")
    seen.add(bundle_hash(root, scan_tree(root).entries))
    assert len(seen) == 5
    # a file and a link with the same bytes as target are told apart
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    (a / "x").write_text("y")
    (b / "x").symlink_to("y")
    assert bundle_hash(a, scan_tree(a).entries) != bundle_hash(b, scan_tree(b).entries)


def test_a_file_swapped_for_a_fifo_after_the_scan_is_not_hashed(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    scan = scan_tree(root)
    os.unlink(root / "SKILL.md")
    os.mkfifo(root / "SKILL.md")
    with pytest.raises(FileProblem):
        bundle_hash(root, scan.entries)  # never blocks on the FIFO


def test_a_file_swapped_for_a_link_after_the_scan_is_not_followed(tmp_path: Path) -> None:
    root = _skill(tmp_path / "s")
    scan = scan_tree(root)
    os.unlink(root / "SKILL.md")
    (root / "SKILL.md").symlink_to("/etc/passwd")
    with pytest.raises(FileProblem):
        bundle_hash(root, scan.entries)
