from pathlib import Path

from lemon_core.mcp.servers.lazy_catalog import scan_sources
from lemon_core.mcp.servers.lazy_prescan import scan_aside
from tests.mcp.servers.lazy_fixtures import skill


def test_the_child_scan_equals_the_scan_here(tmp_path: Path) -> None:
    skill(tmp_path, "one")
    skill(tmp_path / "group", "two", description="multi\nline")
    skill(tmp_path, "bad", name="other")
    aside = scan_aside([str(tmp_path)], [])()
    here = scan_sources([str(tmp_path)])
    assert aside.skills == here.skills
    assert aside.warnings == here.warnings
    assert aside.unchanged()


def test_a_missing_source_is_still_reported(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    assert scan_aside([missing], [])().fatal == (f"skills source not found: {missing}",)
