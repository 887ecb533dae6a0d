"""The ``builtin`` source and the skills lemon ships."""

from __future__ import annotations

import pytest
from lemon_plugins.sources import builtin

from lemon_core.builtin_skills import FOLDER, names
from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.tree import bundle_hash, scan_tree
from lemon_core.protocols import SkillSource
from lemon_core.testing import inline_plugins
from tests.helpers import run_cli

SOURCE = builtin.BuiltinSource()


def test_registers_first_in_router_order():
    sources = inline_plugins(builtin).sources()
    assert [(s.name, s.order) for s in sources] == [("builtin", 0)]
    assert isinstance(sources[0], SkillSource)


def test_lemon_ships_a_guide_to_writing_skills():
    assert "writing-skills" in names()


@pytest.mark.parametrize("name", names())
def test_every_shipped_skill_passes_lemons_lint_and_the_standard(capsys, name):
    code, out, err = run_cli(capsys, "skill", "lint", str(FOLDER / name))
    assert code == 0, out + err
    code, out, err = run_cli(capsys, "skill", "lint", "--standard", str(FOLDER / name))
    assert code == 0, out + err


def test_parse():
    ref = SOURCE.parse("builtin:writing-skills")
    assert (ref.source, ref.name, ref.canonical_id) == ("builtin", "writing-skills",
                                                        "builtin:writing-skills")
    assert SOURCE.parse("builtin").name == ""
    assert SOURCE.parse("./builtin") is None
    assert SOURCE.parse("builtins:x") is None


@pytest.mark.parametrize("identifier", ["builtin:", "builtin:../etc", "builtin:/etc/passwd",
                                        "builtin:a\x1bb", "builtin:Writing", "builtin:a/b"])
def test_parse_rejects_what_is_not_a_name(identifier):
    with pytest.raises(UsageError, match="not a built-in skill id"):
        SOURCE.parse(identifier)


def test_trust_is_builtin():
    assert SOURCE.trust_level(SOURCE.parse("builtin")) == "builtin"


def test_fetch_one_skill(tmp_path, make_ctx):
    dest = tmp_path / "stage"
    dest.mkdir()
    result = SOURCE.fetch(SOURCE.parse("builtin:writing-skills"), dest, make_ctx(), None)
    assert (dest / "SKILL.md").read_bytes() == (FOLDER / "writing-skills" / "SKILL.md").read_bytes()
    assert (dest / "references" / "checklist.md").is_file()
    assert result.revision  # lemon's own version
    upstream = SOURCE.upstream_hash(SOURCE.parse("builtin:writing-skills"), make_ctx())
    assert upstream == bundle_hash(dest, scan_tree(dest).entries)


def test_fetch_all_gives_one_folder_per_skill(tmp_path, make_ctx):
    dest = tmp_path / "stage"
    SOURCE.fetch(SOURCE.parse("builtin"), dest, make_ctx(), None)
    assert sorted(p.name for p in dest.iterdir()) == names()


def test_an_unknown_name_lists_the_known_ones(tmp_path, make_ctx):
    with pytest.raises(LemonError, match="no built-in skill named 'nope'; built-in skills: .*"
                                         "writing-skills"):
        SOURCE.fetch(SOURCE.parse("builtin:nope"), tmp_path / "s", make_ctx(), None)
    assert SOURCE.upstream_hash(SOURCE.parse("builtin:nope"), make_ctx()) is None


def test_search_matches_name_and_description(make_ctx):
    hits = SOURCE.search("writing skills", make_ctx(), 5)
    assert hits[0].identifier == "builtin:writing-skills"
    assert hits[0].description.startswith("Use when")
    assert SOURCE.search("kubernetes", make_ctx(), 5) == []


@pytest.mark.parametrize("name", names())
def test_every_shipped_skill_passes_the_installed_auditors(tmp_path, name):
    from lemon_core.audit.host import audit_folder
    from lemon_core.context import LemonContext

    ctx = LemonContext(cwd=tmp_path, home=tmp_path, env={"LEMON_CACHE_DIR": str(tmp_path / "c")})
    report = audit_folder(FOLDER / name, ctx)
    assert (report.verdict, report.findings) == ("pass", ())
