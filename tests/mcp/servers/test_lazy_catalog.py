import os
from pathlib import Path

from lemon_core.mcp.servers.lazy_catalog import scan_sources, startup_problem
from tests.mcp.servers.lazy_fixtures import skill


def _names(scan) -> list[str]:
    return [s.name for s in scan.skills]


def test_flat_and_grouped_layouts(tmp_path: Path) -> None:
    skill(tmp_path, "flat-one")
    deep = tmp_path.joinpath(*[f"g{i}" for i in range(7)])
    skill(deep, "deep-one")  # 8 levels below the source
    too_deep = tmp_path.joinpath(*[f"h{i}" for i in range(9)])
    skill(too_deep, "too-deep")
    scan = scan_sources([str(tmp_path)])
    assert _names(scan) == ["flat-one", "deep-one"]
    assert any("8 levels" in w for w in scan.warnings)


def test_a_skill_folder_is_not_searched_and_hidden_folders_are_skipped(tmp_path: Path) -> None:
    outer = skill(tmp_path, "outer")
    skill(outer, "inner")
    skill(tmp_path / ".hidden", "secret")
    assert _names(scan_sources([str(tmp_path)])) == ["outer"]


def test_linked_skills_and_groups_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    skill(elsewhere / "group", "linked-skill")
    source = tmp_path / "source"
    source.mkdir()
    os.symlink(elsewhere / "group", source / "group")
    os.symlink(elsewhere / "group" / "linked-skill", source / "direct")
    scan = scan_sources([str(source)])
    # the link named "direct" is a folder named differently from its skill's name
    assert _names(scan) == ["linked-skill"]
    assert scan.skills[0].directory == str(source / "group" / "linked-skill")


def test_a_source_that_is_a_skill_serves_it(tmp_path: Path) -> None:
    folder = skill(tmp_path, "solo")
    assert _names(scan_sources([str(folder)])) == ["solo"]


def test_validity_rule(tmp_path: Path) -> None:
    long_multiline = "|\n  " + "\n  ".join(["A long description line."] * 80) + "\n"
    skill(tmp_path, "served", frontmatter=f"name: served\ndescription: {long_multiline}")
    skill(tmp_path, "no-description", frontmatter="name: no-description\n")
    skill(tmp_path, "renamed", name="other-name")
    skill(tmp_path, "broken", frontmatter="name: [unclosed\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "SKILL.md").write_text("# no frontmatter\n")
    scan = scan_sources([str(tmp_path)])
    assert _names(scan) == ["no-description", "served"]
    assert scan.skills[1].description.count("A long description line.\n") >= 79
    reasons = "\n".join(scan.warnings)
    for folder in ("renamed", "broken", "plain"):
        assert f"{tmp_path / folder / 'SKILL.md'}" in reasons
    assert "other-name" in reasons and "no frontmatter" in reasons


def test_duplicates_first_wins_by_source_then_path(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    skill(second / "a", "dup", description="from second")
    skill(first / "z", "dup", description="from first/z")
    skill(first / "b", "dup", description="from first/b")
    scan = scan_sources([str(first), str(second)])
    assert [(s.name, s.description) for s in scan.skills] == [("dup", "from first/b")]
    duplicate = [w for w in scan.warnings if "duplicate" in w]
    assert len(duplicate) == 2
    assert str(first / "b" / "dup") in duplicate[0] and str(first / "z" / "dup") in duplicate[0]


def test_skip_rule_by_folder_name_and_frontmatter_name(tmp_path: Path) -> None:
    source, skip = tmp_path / "source", tmp_path / "skip"
    for name in ("keep", "by-folder", "by-name"):
        skill(source, name)
    skill(skip, "by-folder", name="unrelated")
    skill(skip, "folder-x", name="by-name")
    scan = scan_sources([str(source)], [str(skip), str(tmp_path / "typo")])
    assert _names(scan) == ["keep"]
    assert any("skip folder not found" in w and "typo" in w for w in scan.warnings)


def test_startup_problems_name_the_paths(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing")
    scan = scan_sources([missing])
    assert startup_problem(scan, [missing]) == f"skills source not found: {missing}"
    empty = tmp_path / "empty"
    empty.mkdir()
    scan = scan_sources([str(empty)])
    assert startup_problem(scan, [str(empty)]) == f"no valid skill found in: {empty}"
    skill(empty, "only")
    skill(tmp_path / "skip", "only")
    scan = scan_sources([str(empty)], [str(tmp_path / "skip")])
    problem = startup_problem(scan, [str(empty)])
    assert problem is not None and "skip folder" in problem and str(empty) in problem


def test_a_fifo_skill_file_is_left_out_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "fifo-skill").mkdir()
    os.mkfifo(tmp_path / "fifo-skill" / "SKILL.md")
    skill(tmp_path, "fine")
    scan = scan_sources([str(tmp_path)])
    assert _names(scan) == ["fine"]


def test_rescan_reuses_unchanged_parses(tmp_path: Path) -> None:
    skill(tmp_path, "one")
    first = scan_sources([str(tmp_path)])
    assert first.unchanged()
    skill(tmp_path, "two")
    assert not first.unchanged()
    assert _names(scan_sources([str(tmp_path)], previous=first)) == ["one", "two"]
