"""Reading a bundle: hostile ids, manifests and folders are refused with every problem named;
real files, real links."""

from __future__ import annotations

import os

import pytest

from lemon_core.blueprints import BlueprintError, open_bundle
from lemon_core.blueprints.parse import MAX_MANIFEST, check_id
from lemon_core.errors import UsageError
from tests.blueprints.support import TEAM, write_bundle


def test_a_bundle_parses_with_its_skills_servers_profiles_and_files(ctx, agent) -> None:
    write_bundle(agent)
    bp = open_bundle(ctx, "team")
    assert (bp.name, [s.source for s in bp.skills]) == (
        "team", ["./skills/alpha", "./skills/beta"])
    assert bp.servers[0]["command"] == "echo" and bp.servers[0]["type"] == "stdio"
    assert bp.profile("small").skills == ("./skills/alpha",)
    assert [f.path for f in bp.files] == ["blueprint.toml", "skills/alpha/SKILL.md",
                                         "skills/beta/SKILL.md"]


@pytest.mark.parametrize("bad", ["", "..", "../x", "a/b", "Team", "tе am", "te\u202eam",
                                 "x" * 65, ".hidden", "a\x00b", "/etc"])
def test_an_unsafe_id_is_a_usage_error(bad) -> None:
    with pytest.raises(UsageError) as caught:
        check_id(bad)
    assert caught.value.exit_code == 2
    assert "\u202e" not in str(caught.value)


@pytest.mark.parametrize(("manifest", "said"), [
    ("version = 1\nname = [", "not valid TOML"),
    ("version = 2\nname = 'x'\n", "version must be 1"),
    ("version = 1\n", "name is required"),
    ("version = 1\nname = 'x\u202ey'\n", "control or invisible"),
    ("version = 1\nname = 'x'\nsurprise = 1\n", "unknown key surprise"),
    ("version = 1\nname = 'x'\nskills = 'nope'\n", "array of tables"),
    ("version = 1\nname = 'x'\n[[skills]]\nname = 'a'\n", "source is required"),
    ("version = 1\nname = 'x'\n[[mcp.servers]]\nname = 'd'\ntype = 'stdio'\n", "command"),
    (("version = 1\nname = 'x'\n[[mcp.servers]]\nname = 'bad name'\ntype = 'stdio'\n"
     "command = 'echo'\n"), "name"),
    ("version = 1\nname = 'x'\n[profiles.p]\nscope = 'system'\n", "scope must be"),
    ("version = 1\nname = 'x'\n[profiles.p]\nskills = ['ghost']\n", "does not define"),
])
def test_a_malformed_manifest_names_its_problems(ctx, agent, manifest, said) -> None:
    write_bundle(agent, manifest=manifest)
    with pytest.raises(BlueprintError, match=said):
        open_bundle(ctx, "team")


def test_an_oversized_or_binary_manifest_is_refused(ctx, agent) -> None:
    root = write_bundle(agent)
    (root / "blueprint.toml").write_bytes(b"# " + b"x" * MAX_MANIFEST)
    with pytest.raises(BlueprintError, match="larger|too large|exceeds|bytes"):
        open_bundle(ctx, "team")
    (root / "blueprint.toml").write_bytes(b"version = 1\nname = '\xff'\n")
    with pytest.raises(BlueprintError, match="UTF-8"):
        open_bundle(ctx, "team")


def test_a_link_anywhere_in_the_bundle_is_refused(ctx, agent, tmp_path) -> None:
    root = write_bundle(agent)
    outside = tmp_path / "secret"
    outside.write_text("s3cret", encoding="utf-8")
    os.symlink(outside, root / "skills" / "alpha" / "notes.md")
    with pytest.raises(BlueprintError, match="symbolic link"):
        open_bundle(ctx, "team")
    os.unlink(root / "skills" / "alpha" / "notes.md")
    os.symlink(tmp_path, root / "skills" / "gamma")
    with pytest.raises(BlueprintError, match="symbolic link"):
        open_bundle(ctx, "team")
    os.unlink(root / "skills" / "gamma")
    (root / "blueprint.toml").unlink()
    os.symlink(outside, root / "blueprint.toml")
    with pytest.raises(BlueprintError):
        open_bundle(ctx, "team")


def test_a_bundle_folder_that_is_a_link_is_refused(ctx, agent, tmp_path) -> None:
    real = write_bundle(tmp_path / "elsewhere")
    (agent / "bundles").mkdir(parents=True)
    os.symlink(real, agent / "bundles" / "team")
    with pytest.raises(BlueprintError, match="not a folder"):
        open_bundle(ctx, "team")


def test_unicode_names_are_kept_exact_and_escaped_in_messages(ctx, agent) -> None:
    manifest = TEAM.replace('name = "team"', 'name = "équipe 团队"')
    write_bundle(agent, manifest=manifest)
    assert open_bundle(ctx, "team").name == "équipe 团队"
    write_bundle(agent, manifest=TEAM + "\n[profiles.\"p\u202ex\"]\nscope = 'project'\n")
    with pytest.raises(BlueprintError) as caught:
        open_bundle(ctx, "team")
    assert "\u202e" not in str(caught.value) and "\\u202e" in str(caught.value)
