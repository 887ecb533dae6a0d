"""A long-lived process: the second snapshot of one Catalog opens a kernel watch, and every
skill added, edited or removed (or a root created later) is still seen at the next call, through
``skills.list`` and ``skills.find_relevant``, with the watch and without it."""

import os
import sys
import time
from pathlib import Path

import pytest

from lemon_core import skills
from lemon_core.catalog import snapshot as snapshot_module
from lemon_core.catalog import watch as watch_module
from lemon_core.catalog.roots import SkillRoot
from lemon_core.catalog.snapshot import Catalog
from tests.helpers import write_skill

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _backdate(*tops: Path) -> None:
    """Age every file and folder past the racy window, as a settled tree would be."""
    old = time.time() - 60
    for top in tops:
        for folder, _, files in os.walk(top):
            for name in files:
                os.utime(os.path.join(folder, name), (old, old))
            os.utime(folder, (old, old))


def _listed(ws) -> list[str]:
    return [item.entry.key for item in skills.list(workspace=ws).skills]


def _found(query: str, ws) -> list[str]:
    return [hit.key for hit in skills.find_relevant(query, max_results=5, workspace=ws)]


@pytest.fixture
def settled(make_ctx, project: Path, home: Path):
    root = project / ".agents" / "skills"
    write_skill(root, "alpha", description="Use when brewing coffee.")
    write_skill(root, "beta", description="Use when baking bread.")
    _backdate(project, home)
    workspace = skills.Workspace(make_ctx())  # a long-lived process holds one
    yield workspace, root
    workspace.close()


def _exercise(ctx, root: Path, project: Path, *, watched: bool, monkeypatch) -> None:
    assert _listed(ctx) == ["alpha", "beta"]
    assert _listed(ctx) == ["alpha", "beta"]
    catalog = ctx.catalog()
    assert catalog.watching is watched
    checks: list[int] = []
    original = snapshot_module.CatalogSnapshot.unchanged
    monkeypatch.setattr(snapshot_module.CatalogSnapshot, "unchanged",
                        lambda self: checks.append(1) or original(self))
    if watched:
        time.sleep(snapshot_module.CHECK_INTERVAL * 2)
        assert _listed(ctx) == ["alpha", "beta"] and checks == []  # no stat: the watch vouched
    else:
        time.sleep(snapshot_module.CHECK_INTERVAL * 2)  # today's coalescing window
    write_skill(root, "gamma", description="Use when grinding pepper.")
    assert _listed(ctx) == ["alpha", "beta", "gamma"]
    assert _found("grinding pepper", ctx)[:1] == ["gamma"]
    if not watched:
        time.sleep(snapshot_module.CHECK_INTERVAL * 2)
    write_skill(root, "alpha", description="Use when juggling torches.")
    assert _found("juggling torches", ctx)[:1] == ["alpha"]
    assert skills.list(workspace=ctx).get("alpha").entry.description == "Use when juggling torches."
    if not watched:
        time.sleep(snapshot_module.CHECK_INTERVAL * 2)
    (root / "beta" / "SKILL.md").unlink()
    (root / "beta").rmdir()
    assert _listed(ctx) == ["alpha", "gamma"]
    assert "beta" not in _found("baking bread", ctx)
    if not watched:
        time.sleep(snapshot_module.CHECK_INTERVAL * 2)
    # a root that did not exist when the watch was set up
    later = project / ".claude" / "skills"
    assert not later.exists()
    write_skill(later, "delta", description="Use when tuning pianos.")
    assert _listed(ctx) == ["alpha", "delta", "gamma"]
    assert _found("tuning pianos", ctx)[:1] == ["delta"]


@linux
def test_with_the_watch_every_change_is_seen_at_the_next_call(settled, project, monkeypatch):
    ctx, root = settled
    _exercise(ctx, root, project, watched=True, monkeypatch=monkeypatch)


def test_without_inotify_the_stat_check_sees_every_change(settled, project, monkeypatch):
    monkeypatch.setattr(watch_module, "open_watcher", lambda folders: None)
    ctx, root = settled
    _exercise(ctx, root, project, watched=False, monkeypatch=monkeypatch)


@linux
def test_one_call_opens_no_watch_and_a_racy_snapshot_is_not_vouched(tmp_path: Path) -> None:
    write_skill(tmp_path, "one")
    catalog = Catalog([SkillRoot(tmp_path, "project", "r")])
    catalog.snapshot()
    assert catalog._watcher is None  # a one-shot CLI call pays nothing
    catalog.snapshot()
    assert not catalog.watching  # just written: racy, so the stat check stays
    _backdate(tmp_path)
    time.sleep(snapshot_module.CHECK_INTERVAL * 2)
    catalog.snapshot()
    assert catalog.watching
    catalog.vouch(True)  # a caller with its own watch: ours is dropped
    assert catalog._watcher is None and not catalog.watching
