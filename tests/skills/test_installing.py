"""skills.install / skills.remove: the library calls, with the installed plugins."""

from __future__ import annotations

from pathlib import Path

import pytest

from lemon_core import skills
from lemon_core.approval import ApprovalRefused
from tests.helpers import write_skill


def test_install_then_remove_is_seen_at_once(make_ctx, home: Path, tmp_path: Path) -> None:
    ctx = make_ctx()
    write_skill(tmp_path / "src", "fresh")
    assert skills.get("fresh", ctx) is None  # the catalog is warm before the install
    result = skills.install(str(tmp_path / "src" / "fresh"), ctx, approve=True)
    assert result.key == "fresh" and result.trust == "trusted"
    entry = skills.get("fresh", ctx)
    assert entry is not None and entry.scope == "global"
    assert skills.lock_record("fresh", ctx).bundle_hash == result.bundle_hash
    removed = skills.uninstall("fresh", ctx, approve=True)
    assert removed.key == "fresh" and skills.get("fresh", ctx) is None


def test_the_default_never_approves(make_ctx, tmp_path: Path) -> None:
    write_skill(tmp_path / "src", "fresh")
    with pytest.raises(ApprovalRefused):
        skills.install(str(tmp_path / "src" / "fresh"), make_ctx())


def test_relative_paths_resolve_against_cwd(make_ctx, project: Path) -> None:
    write_skill(project / "vendor", "mine")
    result = skills.install("./vendor/mine", cwd=project, ctx=make_ctx(), local=True,
                            approve=True)
    assert result.path == str(project / ".lemon" / "skill" / "mine")
    assert skills.get("mine", make_ctx()).scope == "project"
