import os
from pathlib import Path

import pytest

from lemon_core.catalog.roots import GROUPED, SkillRoot
from lemon_core.catalog.walk import MAX_DEPTH, walk_checkout, walk_roots


def _root(path: Path, scope: str = "project", layout: str = "flat") -> SkillRoot:
    return SkillRoot(path, scope, "agents", layout)


def _grouped(path: Path) -> SkillRoot:
    return _root(path, layout=GROUPED)


def _skill(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text("---\nname: x\n---\n")


def _codes(result):
    return sorted(d.code for d in result.diagnostics)


def test_flat_and_grouped_layouts_in_a_checkout(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "alpha")
    _skill(tmp_path / "r" / "dev" / "python" / "beta")
    (tmp_path / "r" / "README.md").write_text("not a skill")
    result = walk_checkout(tmp_path / "r")
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
    keys = [f.key for f in walk_roots([_grouped(tmp_path / "r")]).found]
    assert keys == ["deep", "linked"]
    contained = walk_checkout(tmp_path / "r")  # a checkout follows no link out of it
    assert contained.found == ()
    assert _codes(contained) == ["link_outside_checkout", "link_outside_checkout"]
    _skill(tmp_path / "r" / "real-group" / "inner")
    os.symlink(tmp_path / "r" / "real-group", tmp_path / "r" / "alias")  # stays inside: followed
    assert [f.dir for f in walk_checkout(tmp_path / "r").found] == [
        str(tmp_path / "r" / "alias" / "inner"), str(tmp_path / "r" / "real-group" / "inner")]
    flat = walk_roots([_root(tmp_path / "r")])
    assert [f.key for f in flat.found] == ["linked"]
    assert [d.code for d in flat.diagnostics] == ["nested_skills"]


def test_symlink_loop_is_reported_not_followed(tmp_path: Path) -> None:
    (tmp_path / "r" / "a").mkdir(parents=True)
    os.symlink(tmp_path / "r", tmp_path / "r" / "a" / "back")
    result = walk_roots([_grouped(tmp_path / "r")])
    assert _codes(result) == ["symlink_loop"]
    assert str(tmp_path / "r" / "a" / "back") in result.diagnostics[0].path


@pytest.mark.parametrize("target", ["/", "..", "../.."])
def test_a_link_to_a_folder_above_the_root_is_a_loop_not_a_walk_of_the_disk(
        tmp_path: Path, target: str) -> None:
    """``root -> /`` in a grouped root would otherwise search the whole disk for skills (up to
    the walk's bounds) and serve other people's SKILL.md files; it leads back to the root."""
    root = tmp_path / "project" / "skills"
    root.mkdir(parents=True)
    _skill(root / "mine")
    _skill(tmp_path / "elsewhere" / "theirs")
    os.symlink(target, root / "up")
    result = walk_roots([_grouped(root)])
    assert [f.key for f in result.found] == ["mine"]
    assert _codes(result) == ["symlink_loop"]


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
    result = walk_roots([_grouped(tmp_path / "r")])
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


# -- the spec's layout in agent roots -------------------------------------------------------


def test_agent_roots_load_direct_children_only_and_report_the_rest_once(tmp_path: Path) -> None:
    """A SKILL.md below a sub-folder of an agent root is not a skill (agents do not load it):
    one warning for the root says how many, where, and why."""
    root = tmp_path / "r"
    _skill(root / "alpha")
    for rel in ("dev/python/beta", "dev/rust/gamma", "ops/k8s/delta", "ops/zeta"):
        _skill(root / rel)
    result = walk_roots([_root(root)])
    assert [f.key for f in result.found] == ["alpha"]
    (diagnostic,) = result.diagnostics
    assert (diagnostic.path, diagnostic.severity, diagnostic.code) == (
        str(root), "warning", "nested_skills")
    assert diagnostic.message.startswith("4 SKILL.md files are below a sub-folder")
    assert "dev/python/beta/SKILL.md, dev/rust/gamma/SKILL.md, ops/k8s/delta/SKILL.md, …" \
        in diagnostic.message
    assert "agents do not load" in diagnostic.message
    # the folders searched are watched, so a nested skill appearing is noticed
    assert str(root / "dev" / "python") in dict(result.watched_dirs)


def test_agent_root_with_only_direct_skills_has_no_nested_warning(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "a")
    _skill(tmp_path / "r" / "a" / "inner")  # inside a skill folder: not searched at all
    (tmp_path / "r" / "empty-group").mkdir()
    assert walk_roots([_root(tmp_path / "r")]).diagnostics == ()


def test_problems_deep_in_an_agent_root_stay_quiet(tmp_path: Path) -> None:
    """Nothing below a sub-folder of an agent root is loaded, so its broken links and loops
    are not the user's problem; the sub-folder's own misspelt skill.md still is."""
    root = tmp_path / "r"
    (root / "g" / "h").mkdir(parents=True)
    os.symlink(tmp_path / "missing", root / "g" / "h" / "dangling")
    os.symlink(root, root / "g" / "h" / "loop")
    (root / "g" / "skill.md").write_text("---\ndescription: d\n---\n")
    if os.path.exists(root / "g" / "SKILL.md"):
        pytest.skip("a case-insensitive file system finds skill.md as SKILL.md")
    assert _codes(walk_roots([_root(root)])) == ["misnamed_skill_file"]


def test_grouped_layout_is_a_parameter_of_the_root(tmp_path: Path) -> None:
    _skill(tmp_path / "r" / "dev" / "beta")
    grouped = walk_roots([_grouped(tmp_path / "r")])
    assert [(f.key, f.root.layout) for f in grouped.found] == [("beta", "grouped")]
    assert grouped.diagnostics == ()
    assert walk_roots([_root(tmp_path / "r")]).found == ()


# -- names a reader cannot tell apart ---------------------------------------------------------


def test_five_lookalike_deploy_folders_do_not_list_side_by_side(tmp_path: Path) -> None:
    root = tmp_path / "r"
    for name in ("deploy", "deploy\u200b", "de\u2060ploy", "\ufeffdeploy", "dep\u00adloy"):
        _skill(root / name)
    result = walk_roots([_root(root)])
    assert [f.key for f in result.found] == ["deploy"]
    invalid = [d for d in result.diagnostics if d.code == "invalid_key"]
    assert len(invalid) == 4 and all(d.severity == "error" for d in invalid)
    assert any("U+200B ZERO WIDTH SPACE" in d.message for d in invalid)


def test_keys_differing_by_case_or_compatibility_form_are_warned_about(tmp_path: Path) -> None:
    _skill(tmp_path / "a" / "deploy")
    _skill(tmp_path / "a" / "Deploy")
    _skill(tmp_path / "b" / "\uff44\uff45\uff50\uff4c\uff4f\uff59")  # fullwidth "deploy"
    _skill(tmp_path / "b" / "deploy")  # the same key in a later root: shadowing, not a twin
    _skill(tmp_path / "b" / "\ufb01le")  # the "fi" ligature
    _skill(tmp_path / "b" / "file")
    found = walk_roots([_root(tmp_path / "a"), _root(tmp_path / "b", "global")])
    twins = [(Path(d.path).name, d.severity) for d in found.diagnostics
             if d.code == "lookalike_keys"]
    assert sorted(twins) == sorted([("deploy", "warning"), ("\uff44\uff45\uff50\uff4c\uff4f\uff59",
                                    "warning"), ("\ufb01le", "warning")])
    assert len(found.found) == 6  # warned about, still listed


# -- issue 17 §2: a project root reached through a link out of the project ---------------------


def _skill_at(folder: Path, key: str) -> None:
    (folder / key).mkdir(parents=True)
    (folder / key / "SKILL.md").write_text(f"---\nname: {key}\ndescription: Use when {key}.\n---\n")


def _listing(make_ctx):
    from lemon_core.skills.api import list_skills

    listing = list_skills(make_ctx())
    return ({(s.entry.key, s.scope) for s in listing.skills},
            {d.code: d for d in listing.diagnostics})


@pytest.mark.parametrize("planted", [(".lemon", "skill"), (".claude", "skills")])
def test_a_project_root_linked_out_of_the_project_is_reported_not_listed(
    make_ctx, project: Path, home: Path, planted: tuple[str, str]
) -> None:
    mine = home / ".claude" / "skills"
    _skill_at(mine, "precious")
    (project / planted[0]).mkdir()
    link = project.joinpath(*planted)
    link.symlink_to(mine, target_is_directory=True)
    skills, diagnostics = _listing(make_ctx)
    assert ("precious", "project") not in skills and ("precious", "global") in skills
    found = diagnostics["root_outside_project"]
    assert found.path == str(link) and found.severity == "warning"
    assert str(mine) in found.message


def test_a_whole_lemon_folder_linked_out_is_reported(make_ctx, project: Path,
                                                     tmp_path: Path) -> None:  # fmt: skip
    elsewhere = tmp_path / "elsewhere"
    _skill_at(elsewhere / "skill", "theirs")
    (project / ".lemon").symlink_to(elsewhere, target_is_directory=True)
    skills, diagnostics = _listing(make_ctx)
    assert not any(key == "theirs" for key, _ in skills)
    assert diagnostics["root_outside_project"].path == str(project / ".lemon")


def test_links_inside_the_project_and_single_linked_skills_stay_listed(
    make_ctx, project: Path, tmp_path: Path
) -> None:
    """``.claude/skills -> ../.agents/skills`` stays inside the project; a link *inside* a
    root to one skill folder elsewhere (the hostile tree's ``checkout/linked-ok``) is the user
    linking a skill in."""
    agents = project / ".agents" / "skills"
    _skill_at(agents, "shared")
    (project / ".claude").mkdir()
    (project / ".claude" / "skills").symlink_to("../.agents/skills", target_is_directory=True)
    _skill_at(tmp_path / "checkout", "linked-ok")
    (agents / "linked-ok").symlink_to(tmp_path / "checkout" / "linked-ok",
                                      target_is_directory=True)
    skills, diagnostics = _listing(make_ctx)
    assert {("shared", "project"), ("linked-ok", "project")} <= skills
    assert "root_outside_project" not in diagnostics



def test_a_linked_out_root_keeps_the_persistent_cache_usable_and_fresh(
    make_ctx, project: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The skipped root is watched like a walked one: the cache is reused while nothing changes,
    and replacing the link with a real folder lists the project's own skills at once."""
    from lemon_core.catalog.cache import CacheStore
    from lemon_core.skills import api

    mine = home / ".claude" / "skills"
    _skill_at(mine, "precious")
    (project / ".lemon").mkdir()
    (project / ".lemon" / "skill").symlink_to(mine, target_is_directory=True)
    first = api.list_skills(make_ctx(), persistent=True)
    loaded = []
    real_load = CacheStore.load

    def load(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        found = real_load(self, *args, **kwargs)
        loaded.append(found is not None)
        return found

    monkeypatch.setattr(CacheStore, "load", load)
    second = api.list_skills(make_ctx(), persistent=True)
    monkeypatch.undo()
    assert loaded == [True]
    assert {d.code for d in second.diagnostics} == {d.code for d in first.diagnostics}
    (project / ".lemon" / "skill").unlink()
    _skill_at(project / ".lemon" / "skill", "ours")
    third = api.list_skills(make_ctx(), persistent=True)
    assert ("ours", "project") in {(s.entry.key, s.scope) for s in third.skills}
    assert "root_outside_project" not in {d.code for d in third.diagnostics}
