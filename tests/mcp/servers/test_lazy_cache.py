"""The cached scan of ``lazy-skills-mcp``: quicker at a restart, never different."""

import os
import time
from pathlib import Path

import pytest

from lemon_core.mcp.servers import lazy_cache
from lemon_core.mcp.servers.lazy_cache import cache_path, prepare
from lemon_core.mcp.servers.lazy_catalog import scan_sources
from tests.mcp.servers.lazy_fixtures import skill


def _age(root: Path, seconds: float = 60.0) -> None:
    """Date every file and folder below ``root`` back (out of the racy window)."""
    when = time.time() - seconds
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(folder, name), (when, when))
        os.utime(folder, (when, when))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "skills"
    skill(source, "one", description="First.")
    skill(source / "group", "two", description="Second.")
    skill(source, "bad", name="other")
    _age(source)
    return source, tmp_path / "cache"


def _served(scan) -> list[tuple[str, str]]:
    return [(s.name, s.description) for s in scan.skills]


def _restart(source: Path, cache: Path):
    scan, save = prepare([str(source)], [], folder=cache)
    if save is not None:
        save()
    return scan, save is None


def test_a_restart_at_an_unchanged_tree_uses_the_cache(tree, monkeypatch) -> None:
    source, cache = tree
    first, cached = _restart(source, cache)
    assert not cached and cache_path(cache, [str(source)], []).is_file()
    parsed = []
    monkeypatch.setattr(lazy_cache, "scan_sources", lambda *a, **k: parsed.append(a))
    again, cached = _restart(source, cache)
    assert cached and not parsed  # no walk, no parse
    assert again == first
    fresh = scan_sources([str(source)])
    assert _served(again) == _served(fresh) and again.warnings == fresh.warnings


@pytest.mark.parametrize("change", ["edit", "add", "remove", "rename"])
def test_a_change_on_disk_is_served_after_a_restart(tree, change: str) -> None:
    source, cache = tree
    _restart(source, cache)
    if change == "edit":  # the same size, only the text differs
        skill(source, "one", description="Frist.")
        _age(source / "one", 30)
    elif change == "add":
        skill(source / "group", "three")
        _age(source, 30)
    elif change == "remove":
        (source / "group" / "two" / "SKILL.md").unlink()
        _age(source, 30)
    else:
        (source / "group" / "two").rename(source / "group" / "zwei")
        _age(source, 30)
    again, cached = _restart(source, cache)
    assert not cached
    assert _served(again) == _served(scan_sources([str(source)]))
    assert _restart(source, cache)[1]  # and cached again from then on


def test_a_file_written_within_the_racy_window_is_read_again(tree) -> None:
    source, cache = tree
    skill(source, "one", description="Now.")  # just written: one tick could hide a write
    _restart(source, cache)
    again, cached = _restart(source, cache)
    assert not cached and ("one", "Now.") in _served(again)


@pytest.mark.parametrize("damage", ["garbage", "flipped", "fifo"])
def test_a_forged_or_damaged_cache_is_ignored(tree, damage: str) -> None:
    source, cache = tree
    first, _ = _restart(source, cache)
    path = cache_path(cache, [str(source)], [])
    data = path.read_bytes()
    path.unlink()
    if damage == "garbage":
        path.write_bytes(b"lemon-lazy-skills-scan 00\n{}")
    elif damage == "flipped":  # a skill's description edited in the file: the MAC fails
        path.write_bytes(data.replace(b"First.", b"Evil!."))
    else:
        os.mkfifo(path)
    again, cached = _restart(source, cache) if damage != "fifo" else (
        prepare([str(source)], [], folder=cache)[0], False)
    assert not cached and _served(again) == _served(first)


def test_other_folders_have_their_own_cache(tree, tmp_path: Path) -> None:
    source, cache = tree
    other = tmp_path / "other"
    skill(other, "else")
    _age(other)
    _restart(source, cache)
    scan, cached = _restart(other, cache)
    assert not cached and _served(scan) == [("else", "A test skill.")]
    assert cache_path(cache, [str(source)], []) != cache_path(cache, [str(other)], [])
    assert cache_path(cache, [str(source)], []) != cache_path(cache, [str(source)],
                                                              [str(other)])
