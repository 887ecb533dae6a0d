import os
from pathlib import Path

import pytest

from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.walk import MAX_DEPTH, walk_roots


def _root(path: Path, scope: str = "project") -> SkillRoot:
    return SkillRoot(path, scope, "agents")


def _skill(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text("---\nname: x\n---\n")


def _codes(result):
    return sorted(d.code for d in result.diagnostics)


def test_flat_and_grouped_layouts(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "alpha")
    _skill(tmp_path / "r" / "dev" / "python" / "beta")
    (tmp_path / "r" / "README.md").write_text("not a skill")
    result = walk_roots([_root(tmp_path / "r")])
    assert [(f.key, f.dir) for f in result.found] == [
        ("alpha", str(tmp_path / "r" / "alpha")),
        ("beta", str(tmp_path / "r" / "dev" / "python" / "beta")),
    ]
    assert result.diagnostics == ()


def test_a_skill_folder_is_not_searched_further(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "outer")
    _skill(tmp_path / "r" / "outer" / "inner")
    assert [f.key for f in walk_roots([_root(tmp_path / "r")]).found] == ["outer"]


def test_hidden_folders_are_skipped(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / ".system" / "hidden-skill")
    _skill(tmp_path / "r" / ".dot")
    assert walk_roots([_root(tmp_path / "r")]).found == ()


def test_missing_root_is_watched_so_its_creation_is_noticed(tmp_path: Path) -> None:
    result = walk_roots([_root(tmp_path / "nope")])
    assert result.found == () and result.watched_dirs == ((str(tmp_path / "nope"), None),)


def test_symlinked_skill_and_group_are_followed(tmp_path: Path) -> None:
    _skill(tmp_path / "elsewhere" / "linked")
    _skill(tmp_path / "groups" / "g" / "deep")
    (tmp_path / "r").mkdir()
    os.symlink(tmp_path / "elsewhere" / "linked", tmp_path / "r" / "linked")
    os.symlink(tmp_path / "groups" / "g", tmp_path / "r" / "g")
    keys = [f.key for f in walk_roots([_root(tmp_path / "r")]).found]
    assert keys == ["deep", "linked"]


def test_symlink_loop_is_reported_not_followed(tmp_path: Path) -> None:
    (tmp_path / "r" / "a").mkdir(parents=True)
    os.symlink(tmp_path / "r", tmp_path / "r" / "a" / "back")
    result = walk_roots([_root(tmp_path / "r")])
    assert _codes(result) == ["symlink_loop"]
    assert str(tmp_path / "r" / "a" / "back") in result.diagnostics[0].path


def test_dangling_links_are_reported(tmp_path: Path) -> None:
    (tmp_path / "r" / "half").mkdir(parents=True)
    os.symlink(tmp_path / "missing", tmp_path / "r" / "gone")
    os.symlink(tmp_path / "missing.md", tmp_path / "r" / "half" / "SKILL.md")
    assert _codes(walk_roots([_root(tmp_path / "r")])) == ["broken_symlink", "broken_symlink"]


def test_depth_limit(tmp_path: Path) -> None:
    deep = tmp_path / "r"
    for i in range(MAX_DEPTH):
        deep = deep / f"g{i}"
    _skill(deep / "reachable")
    _skill(deep / "g-last" / "too-deep")
    result = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in result.found] == ["reachable"]
    assert _codes(result) == ["depth_limit"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every folder")
def test_unreadable_group_is_reported_and_the_walk_goes_on(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "ok")
    (tmp_path / "r" / "locked").mkdir()
    os.chmod(tmp_path / "r" / "locked", 0)
    try:
        result = walk_roots([_root(tmp_path / "r")])
    finally:
        os.chmod(tmp_path / "r" / "locked", 0o755)
    assert [f.key for f in result.found] == ["ok"] and _codes(result) == ["unreadable_directory"]


def test_unsafe_folder_names_are_rejected_as_keys(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "bad\u202ename")
    _skill(tmp_path / "r" / "line\nbreak")
    _skill(tmp_path / "r" / "技能")
    result = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in result.found] == ["技能"]
    assert _codes(result) == ["invalid_key", "invalid_key"]
    assert all(d.severity == "error" for d in result.diagnostics)


def test_skill_md_that_is_a_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "r" / "odd" / "SKILL.md").mkdir(parents=True)
    assert _codes(walk_roots([_root(tmp_path / "r")])) == ["not_a_file"]


def test_roots_keep_their_order(tmp_path: Path) -> None:
    _skill(tmp_path / "b" / "same")
    _skill(tmp_path / "a" / "same")
    found = walk_roots([_root(tmp_path / "b"), _root(tmp_path / "a", "global")]).found
    assert [(f.key, f.root.scope) for f in found] == [("same", "project"), ("same", "global")]


def test_a_misspelt_skill_file_is_reported_not_ignored(tmp_path: Path) -> None:
    """A folder holding skill.md (not SKILL.md) is no skill; it is reported, never silent."""
    folder = tmp_path / "r" / "lower"
    folder.mkdir(parents=True)
    (folder / "skill.md").write_text("---\ndescription: d\n---\n")
    names = {entry.name for entry in os.scandir(folder)}
    if "SKILL.md" in names or os.path.exists(folder / "SKILL.md"):
        pytest.skip("a case-insensitive file system finds it as SKILL.md")
    (tmp_path / "r" / "notes.md").write_text("a plain file is fine")
    result = walk_roots([_root(tmp_path / "r")])
    assert result.found == ()
    assert [(d.path, d.severity, d.code) for d in result.diagnostics] == [
        (str(folder / "skill.md"), "warning", "misnamed_skill_file")]


def test_a_skill_file_directly_in_a_root_is_reported(tmp_path: Path) -> None:
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "SKILL.md").write_text("---\ndescription: d\n---\n")
    _skill(tmp_path / "r" / "real")
    result = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in result.found] == ["real"]
    assert [(d.path, d.code) for d in result.diagnostics] == [
        (str(tmp_path / "r" / "SKILL.md"), "misplaced_skill_file")]
