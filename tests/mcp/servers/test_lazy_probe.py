"""The early verdict: True only when the scan will serve something."""

import os
from pathlib import Path

import pytest

from lemon_core.mcp.servers.lazy_catalog import scan_sources, startup_problem
from lemon_core.mcp.servers.lazy_probe import surely_servable
from tests.mcp.servers.lazy_fixtures import skill


def _check(sources: list[Path], skip: list[Path] = ()) -> bool:
    names, skips = [str(s) for s in sources], [str(s) for s in skip]
    verdict = surely_servable(names, skips)
    if verdict:  # never wrong about the scan
        assert startup_problem(scan_sources(names, skips), names) is None
    return verdict


def test_a_valid_skill_in_a_source(tmp_path: Path) -> None:
    skill(tmp_path, "bad", name="other")
    skill(tmp_path, "good")
    assert _check([tmp_path])


def test_a_source_that_is_a_skill(tmp_path: Path) -> None:
    assert _check([skill(tmp_path, "solo")])


def test_a_missing_source_is_never_servable(tmp_path: Path) -> None:
    skill(tmp_path, "good")
    assert not _check([tmp_path, tmp_path / "missing"])


@pytest.mark.parametrize("case", ["wrong-name", "no-frontmatter", "skipped", "hidden",
                                  "linked-folder", "linked-file", "grouped", "empty"])
def test_anything_less_certain_waits_for_the_scan(tmp_path: Path, case: str) -> None:
    source = tmp_path / "skills"
    source.mkdir()
    skip = []
    if case == "wrong-name":
        skill(source, "bad", name="other")
    elif case == "no-frontmatter":
        (source / "bare").mkdir()
        (source / "bare" / "SKILL.md").write_text("# no frontmatter\n")
    elif case == "skipped":
        skill(source, "installed")
        skill(tmp_path / "native", "installed")
        skip = [tmp_path / "native"]
    elif case == "hidden":
        skill(source, ".secret", name=".secret")
    elif case == "linked-folder":
        os.symlink(skill(tmp_path / "elsewhere", "linked"), source / "linked")
    elif case == "linked-file":
        folder = skill(tmp_path / "elsewhere", "linked")
        (source / "linked").mkdir()
        os.symlink(folder / "SKILL.md", source / "linked" / "SKILL.md")
    elif case == "grouped":
        skill(source / "group", "deep")
    assert not _check([source], skip)
