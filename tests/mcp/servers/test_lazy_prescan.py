import os
from pathlib import Path

import pytest

from lemon_core.mcp.servers import lazy_prescan
from lemon_core.mcp.servers.lazy_catalog import scan_sources
from lemon_core.mcp.servers.lazy_prescan import Head, scan_aside
from tests.mcp.servers.lazy_fixtures import skill


def test_the_child_scan_equals_the_scan_here(tmp_path: Path) -> None:
    skill(tmp_path, "one")
    skill(tmp_path / "group", "two", description="multi\nline")
    skill(tmp_path, "bad", name="other")
    aside = scan_aside([str(tmp_path)], [], cache=False)
    here = scan_sources([str(tmp_path)])
    # servable for sure ("one"): the head is sent before the scan, its warnings come later
    assert aside.head() == Head(None, ())
    scan = aside.scan()
    assert scan.skills == here.skills
    assert scan.warnings == here.warnings
    assert scan.unchanged()


def test_a_missing_source_is_the_heads_problem(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    aside = scan_aside([missing], [], cache=False)
    assert aside.head().problem == f"skills source not found: {missing}"
    assert aside.scan().fatal == (f"skills source not found: {missing}",)


def test_warnings_are_in_the_head_when_it_waits_for_the_scan(tmp_path: Path) -> None:
    skill(tmp_path / "group", "two")  # grouped: the probe is unsure, the head waits
    skill(tmp_path, "bad", name="other")
    here = scan_sources([str(tmp_path)])
    assert here.warnings
    assert scan_aside([str(tmp_path)], [], cache=False).head() == Head(None, here.warnings)


def test_nothing_valid_is_the_heads_problem(tmp_path: Path) -> None:
    skill(tmp_path, "bad", name="other")
    assert scan_aside([str(tmp_path)], [], cache=False).head().problem == (
        f"no valid skill found in: {tmp_path}")


def test_a_failing_child_means_a_scan_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    skill(tmp_path, "one")

    def broken(*args: object) -> None:
        raise RuntimeError("the child breaks")

    monkeypatch.setattr(lazy_prescan, "_write_frame", broken)  # inherited by the forked child
    aside = scan_aside([str(tmp_path)], [], cache=False)
    assert aside.head() == Head(None, ())
    assert [s.name for s in aside.scan().skills] == ["one"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the scan is made aside only with fork")
def test_the_child_writes_the_cache_the_next_start_uses(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    source = tmp_path / "skills"
    skill(source, "one")
    monkeypatch.setenv("LEMON_CACHE_DIR", str(tmp_path / "cache"))
    aside = scan_aside([str(source)], [])
    assert [s.name for s in aside.scan().skills] == ["one"]
    for _ in range(200):  # the child saves once the parent has the scan
        if list((tmp_path / "cache" / "skills").glob("lazy-*.json")):
            break
        import time
        time.sleep(0.05)
    assert list((tmp_path / "cache" / "skills").glob("lazy-*.json"))
