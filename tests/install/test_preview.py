"""The preview of a tree (``lemon skill install SOURCE --list``): every skill with its folder,
description, validity and audit verdict, fetched as an install fetches, nothing installed."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.install import preview as previewing
from lemon_core.testing import inline_plugins
from tests.gitserver import GitServer, build_repo
from tests.helpers import write_skill
from tests.install.support import MarkerPlugin, snapshot

pytestmark = pytest.mark.integration  # starts processes or loopback servers


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system temporary folder of this test: the preview's staging folder goes there."""
    folder = tmp_path / "systemtmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _tree(root: Path) -> Path:
    write_skill(root, "alpha", description="Use when alpha.")
    write_skill(root, "group/beta", name="beta", body="WARNME\n")
    write_skill(root, "mismatch", name="other")
    write_skill(root, "mismatch/inner", name="inner-skill")  # nested in another skill
    write_skill(root, "blocked", body="BLOCKME\n")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("---\nname: [broken\n---\nBody.\n")
    return root


def test_every_skill_is_listed_and_nothing_is_written(plugins, make_ctx, src, home, project,
                                                      private_tmp) -> None:
    _tree(src)
    before = snapshot(home / ".lemon", project)
    asked = []
    found = previewing.preview(str(src), make_ctx(), plugins=plugins,
                               approve=lambda r: asked.append(r) or True)
    assert [r.stage for r in asked] == ["fetch"] and asked[0].scope == "preview"
    assert found.source == "local" and found.trust == "trusted"
    rows = {r.folder: r for r in found.rows}
    assert list(rows) == ["alpha", "blocked", "broken", "group/beta", "mismatch",
                          "mismatch/inner"]
    assert (rows["alpha"].key, rows["alpha"].valid, rows["alpha"].verdict,
            rows["alpha"].description) == ("alpha", True, "pass", "Use when alpha.")
    assert (rows["group/beta"].key, rows["group/beta"].valid,
            rows["group/beta"].verdict) == ("beta", True, "warn")
    assert rows["blocked"].verdict == "block" and rows["blocked"].findings
    # a folder named unlike its skill installs under the skill's name, with a warning
    assert (rows["mismatch"].key, rows["mismatch"].valid) == ("other", True)
    assert rows["mismatch"].warnings == (
        ("other: installed as other (its folder upstream is mismatch); agents load it by that "
        "name, and update, outdated and sync follow the upstream folder"),)
    # a nested skill is shown inside its parent
    assert (rows["mismatch/inner"].key, rows["mismatch/inner"].inside) == (
        "inner-skill", "mismatch")
    assert all(r.inside is None for f, r in rows.items() if f != "mismatch/inner")
    assert not rows["broken"].valid and "SKILL.md of 'broken' is invalid" in (
        rows["broken"].reason or "")
    assert rows["broken"].description is None
    # no skills folder, no lockfile, no staging folder left anywhere
    assert snapshot(home / ".lemon", project) == before
    assert not (home / ".lemon" / "agent" / "skill").exists()
    assert not (project / ".lemon").exists()
    assert os.listdir(private_tmp) == []


def test_the_staging_folder_is_private_and_removed(plugins, make_ctx, src,
                                                   private_tmp) -> None:
    from lemon_core.install.pipeline import InstallSteps

    write_skill(src, "alpha")
    seen = []

    class Watching(InstallSteps):
        def fetch(self, source, ref, tree, ctx, progress):  # type: ignore[no-untyped-def]
            seen.append((tree, oct(os.stat(tree.parent).st_mode & 0o777),
                         oct(os.stat(tree).st_mode & 0o777)))
            return super().fetch(source, ref, tree, ctx, progress)

    previewing.preview(str(src), make_ctx(), plugins=plugins, approve=True, steps=Watching())
    (tree, parent_mode, tree_mode), = seen
    assert tree.parent.parent == private_tmp and (parent_mode, tree_mode) == ("0o700", "0o700")
    assert not tree.parent.exists()


def test_a_failing_fetch_leaves_no_staging_folder(plugins, make_ctx, tmp_path,
                                                  private_tmp) -> None:
    from lemon_core.errors import LemonError

    with pytest.raises(LemonError, match="no such folder"):
        previewing.preview(str(tmp_path / "missing"), make_ctx(), plugins=plugins,
                           approve=True)
    assert os.listdir(private_tmp) == []


def test_without_approval_nothing_is_fetched(plugins, make_ctx, src, private_tmp) -> None:
    write_skill(src, "alpha")
    with pytest.raises(ApprovalRefused, match="needs approval"):
        previewing.preview(str(src), make_ctx(), plugins=plugins)
    with pytest.raises(ApprovalRefused, match="was not approved"):
        previewing.preview(str(src), make_ctx(), plugins=plugins, approve=lambda r: False)
    assert os.listdir(private_tmp) == []


def test_one_skill_at_the_root_and_a_name_clash(plugins, make_ctx, tmp_path,
                                                private_tmp) -> None:
    write_skill(tmp_path, "solo")
    found = previewing.preview(str(tmp_path / "solo"), make_ctx(), plugins=plugins,
                               approve=True)
    assert [(r.key, r.folder, r.valid) for r in found.rows] == [("solo", "", True)]
    write_skill(tmp_path / "clash", "a/pdf", name="pdf")
    write_skill(tmp_path / "clash", "b/pdf", name="pdf")
    found = previewing.preview(str(tmp_path / "clash"), make_ctx(), plugins=plugins,
                               approve=True)
    assert [(r.folder, r.valid) for r in found.rows] == [("a/pdf", False), ("b/pdf", False)]
    assert all("another skill of the tree is named 'pdf'" in (r.reason or "")
               for r in found.rows)


def test_an_empty_tree_has_no_rows(plugins, make_ctx, src, private_tmp) -> None:
    (src / "README.md").write_text("nothing here\n")
    found = previewing.preview(str(src), make_ctx(), plugins=plugins, approve=True)
    assert found.rows == ()


# -- owner/repo: GitHub, over the loopback git server -----------------------------------------


@pytest.fixture
def git_server() -> Iterator[GitServer]:
    with GitServer() as server:
        yield server


def test_owner_repo_previews_the_github_repository(tmp_path, make_ctx, git_server, home,
                                                   private_tmp) -> None:
    from lemon_plugins.sources import gh, local

    skill = "---\nname: {0}\ndescription: Use when {0}.\n---\nBody.\n"
    repo, commit_id = build_repo(tmp_path / "r", {"skills/pdf/SKILL.md": skill.format("pdf"),
                                                  "skills/xlsx/SKILL.md": skill.format("xlsx"),
                                                  "README.md": "hi\n"})
    git_server.add("octo/skills.git", repo)
    plugins = inline_plugins(("sources.gh", gh), ("sources.local", local),
                             ("auditors.marker", MarkerPlugin()))
    found = previewing.preview("octo/skills", make_ctx(LEMON_GITHUB_URL=git_server.url),
                               plugins=plugins, approve=True)
    assert (found.source, found.canonical_id, found.revision) == ("gh", "octo/skills",
                                                                   commit_id)
    assert [(r.key, r.folder, r.valid, r.verdict) for r in found.rows] == [
        ("pdf", "skills/pdf", True, "pass"), ("xlsx", "skills/xlsx", True, "pass")]
    assert not (home / ".lemon" / "agent" / "skill").exists()
    assert os.listdir(private_tmp) == []
