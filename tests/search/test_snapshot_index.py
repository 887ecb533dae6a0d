"""The index of a catalog snapshot: kept per snapshot, rebuilt reading only what changed."""

from __future__ import annotations

import os
from pathlib import Path

from lemon_core import skills
from lemon_core.search import snapshot_index
from tests.helpers import write_skill


def _age(root: Path, seconds: int = 3600) -> None:
    for path in [*root.rglob("*"), root]:
        stat = path.stat()
        os.utime(path, (stat.st_mtime - seconds, stat.st_mtime - seconds))


def test_a_rebuild_reads_only_the_changed_bodies(make_ctx, project: Path, monkeypatch) -> None:
    root = project / ".agents" / "skills"
    for key in ("alpha", "beta", "gamma"):
        write_skill(root, key, description=f"The {key} skill.", body=f"Talks about {key}.\n")
    _age(root)
    ws = skills.Workspace(make_ctx(LEMON_BUILTIN_SKILLS="0"))  # a server holds one
    read: list[str] = []
    original = snapshot_index.body_excerpt
    monkeypatch.setattr(snapshot_index, "body_excerpt",
                        lambda path: read.append(Path(path).parent.name) or original(path))
    assert skills.find_relevant("talks beta", workspace=ws)[0].key == "beta"
    assert sorted(read) == ["alpha", "beta", "gamma"]
    read.clear()
    write_skill(root, "beta", description="The beta skill.", body="Now about zebras.\n")
    _age(root / "beta", 1800)
    skills.refresh(workspace=ws)
    assert [h.key for h in skills.find_relevant("zebras", workspace=ws)] == ["beta"]
    assert read == ["beta"]
    read.clear()
    other = skills.Workspace(ws.ctx)  # another workspace shares nothing: it reads every body
    assert [h.key for h in skills.find_relevant("zebras", workspace=other)] == ["beta"]
    assert sorted(read) == ["alpha", "beta", "gamma"]


def test_recently_changed_files_are_never_trusted(make_ctx, project: Path) -> None:
    root = project / ".agents" / "skills"
    write_skill(root, "fresh", description="Just written.")
    ctx = make_ctx(LEMON_BUILTIN_SKILLS="0")
    snapshot = skills.api.catalog_for(ctx).snapshot()
    assert snapshot_index.trusted_signatures(snapshot) == {}
