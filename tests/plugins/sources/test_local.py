"""The ``local`` source: paths parsed without I/O, a folder copied safely into staging."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lemon_plugins.sources import local

from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.tree import scan_tree
from lemon_core.protocols import SkillSource
from lemon_core.testing import inline_plugins
from tests.helpers import write_skill

SOURCE = local.LocalSource()


def test_registers_one_source_satisfying_the_protocol():
    sources = inline_plugins(local).sources()
    assert [s.name for s in sources] == ["local"]
    assert isinstance(sources[0], SkillSource)
    assert sources[0].order == 60


@pytest.mark.parametrize(
    ("identifier", "name"),
    [("/abs/skills/pdf", "pdf"), ("./pdf", "pdf"), ("../x/pdf/", "pdf"), ("~/skills/pdf", "pdf"),
     (".", ""), ("..", "")],
)
def test_parse_accepts_paths_without_touching_disk(identifier, name):
    ref = SOURCE.parse(identifier)
    assert (ref.source, ref.identifier, ref.name, ref.canonical_id) == (
        "local", identifier, name, None)


@pytest.mark.parametrize("identifier", ["pdf", "gh:a/b", "a/b/c", "https://x.example/r.git",
                                        "hermes:optional/x/y", "", "~user/x"])
def test_parse_leaves_other_forms_alone(identifier):
    assert SOURCE.parse(identifier) is None


@pytest.mark.parametrize("identifier", ["./a\x1b[2Jb", "/tmp/\u202eevil", "./a\nb", "/a\x00b"])
def test_parse_rejects_control_characters_with_a_reason(identifier):
    with pytest.raises(UsageError, match="local path"):
        SOURCE.parse(identifier)


def test_bind_makes_the_path_absolute_against_the_context(make_ctx, project, home):
    ctx = make_ctx()
    bound = SOURCE.bind(SOURCE.parse("./skills/../pdf"), ctx)
    assert bound.canonical_id == str(project / "pdf")
    assert SOURCE.bind(SOURCE.parse("~/s/pdf"), ctx).canonical_id == str(home / "s" / "pdf")
    assert SOURCE.bind(SOURCE.parse("."), ctx).name == project.name


def test_trust_is_trusted():
    assert SOURCE.trust_level(SOURCE.parse("/x")) == "trusted"


def test_fetch_copies_one_skill_keeping_the_executable_bit(make_ctx, project, tmp_path):
    write_skill(project, "pdf")
    script = project / "pdf" / "scripts" / "run.sh"
    script.parent.mkdir()
    script.write_text("echo hi\n")
    script.chmod(0o755)
    dest = tmp_path / "stage"
    dest.mkdir()
    result = SOURCE.fetch(SOURCE.parse("./pdf"), dest, make_ctx(), None)
    assert result.revision is None
    assert (dest / "SKILL.md").read_text() == (project / "pdf" / "SKILL.md").read_text()
    assert os.stat(dest / "scripts" / "run.sh").st_mode & 0o111


def test_fetch_copies_a_folder_of_skills_and_never_git(make_ctx, project, tmp_path):
    write_skill(project / "many", "one")
    write_skill(project / "many", "two")
    (project / "many" / ".git").mkdir()
    (project / "many" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "many" / "one" / ".git").write_text("gitdir: elsewhere\n")
    dest = tmp_path / "stage"
    result = SOURCE.fetch(SOURCE.parse("./many"), dest, make_ctx(), None)
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*")) == [
        "one", "one/SKILL.md", "two", "two/SKILL.md"]
    assert result.notes == ("left out the repository data (.git)",)


def test_fetch_of_a_subpath_copies_that_skill(make_ctx, project, tmp_path):
    write_skill(project / "many", "one")
    write_skill(project / "many", "two")
    ref = SOURCE.parse("./many")
    import attrs

    SOURCE.fetch(attrs.evolve(ref, subpath="two"), tmp_path / "s", make_ctx(), None)
    assert [p.name for p in (tmp_path / "s").iterdir()] == ["SKILL.md"]
    with pytest.raises(UsageError, match=r"'\.\.' steps"):
        SOURCE.fetch(attrs.evolve(ref, subpath="../etc"), tmp_path / "t", make_ctx(), None)


def test_a_link_out_is_copied_as_a_link_never_followed(make_ctx, project, tmp_path):
    write_skill(project, "pdf")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=hunter2\n")
    os.symlink(secret, project / "pdf" / "data")
    os.symlink("../other", project / "pdf" / "sibling")
    dest = tmp_path / "stage"
    SOURCE.fetch(SOURCE.parse("./pdf"), dest, make_ctx(), None)
    assert os.readlink(dest / "data") == str(secret)
    assert not any("hunter2" in p.read_text() for p in dest.glob("*") if p.is_file()
                   and not p.is_symlink())
    codes = sorted(p.code for p in scan_tree(dest).problems)
    assert codes == ["escaping_link", "escaping_link"]  # the pipeline refuses it


@pytest.mark.parametrize("kind", ["fifo", "hardlink"])
def test_fifos_and_hard_links_are_refused_by_name(make_ctx, project, tmp_path, kind):
    write_skill(project, "pdf")
    if kind == "fifo":
        os.mkfifo(project / "pdf" / "pipe")
        expected = "pipe: a FIFO"
    else:
        os.link(project / "pdf" / "SKILL.md", tmp_path / "elsewhere")
        expected = "SKILL.md: a hard link"
    with pytest.raises(LemonError, match=expected):
        SOURCE.fetch(SOURCE.parse("./pdf"), tmp_path / "stage", make_ctx(), None)


def test_a_sparse_giant_is_refused_before_reading(make_ctx, project, tmp_path):
    write_skill(project, "pdf")
    with open(project / "pdf" / "big.bin", "wb") as fh:
        fh.truncate(1 << 30)
    with pytest.raises(LemonError, match="big.bin: 1073741824 bytes"):
        SOURCE.fetch(SOURCE.parse("./pdf"), tmp_path / "stage", make_ctx(), None)


def test_too_many_files_stop_at_the_cap(make_ctx, project, tmp_path):
    folder = project / "many"
    write_skill(project, "many")
    for i in range(2_100):
        (folder / f"f{i}").touch()
    with pytest.raises(LemonError, match="more than 2000 files and folders"):
        SOURCE.fetch(SOURCE.parse("./many"), tmp_path / "stage", make_ctx(), None)


def test_a_missing_folder_or_a_file_says_what_to_do(make_ctx, project, tmp_path):
    with pytest.raises(LemonError, match="no such folder"):
        SOURCE.fetch(SOURCE.parse("./nope"), tmp_path / "s", make_ctx(), None)
    (project / "file").write_text("x")
    with pytest.raises(LemonError, match="not a folder"):
        SOURCE.fetch(SOURCE.parse("./file"), tmp_path / "s", make_ctx(), None)


def test_upstream_hash_is_the_bundle_hash_of_the_folder(make_ctx, project, tmp_path):
    from lemon_core.fsio.tree import bundle_hash

    write_skill(project, "pdf")
    ctx = make_ctx()
    ref = SOURCE.parse("./pdf")
    first = SOURCE.upstream_hash(ref, ctx)
    dest = tmp_path / "stage"
    SOURCE.fetch(ref, dest, ctx, None)
    assert first == bundle_hash(dest, scan_tree(dest).entries)  # the same hash both ways
    (project / "pdf" / "SKILL.md").write_text("changed")
    assert SOURCE.upstream_hash(ref, ctx) != first
    assert SOURCE.upstream_hash(SOURCE.parse("./gone"), ctx) is None


def test_search_answers_nothing(make_ctx):
    assert SOURCE.search("pdf", make_ctx(), 10) == []


def test_relative_path_depends_on_the_context_not_the_process(make_ctx, project, tmp_path,
                                                              monkeypatch):
    write_skill(project, "pdf")
    monkeypatch.chdir(tmp_path)
    SOURCE.fetch(SOURCE.parse("./pdf"), tmp_path / "stage", make_ctx(), None)
    assert Path(tmp_path / "stage" / "SKILL.md").exists()
