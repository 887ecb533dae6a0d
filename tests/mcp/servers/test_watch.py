import sys
from pathlib import Path

import attrs
import pytest

from lemon_core.catalog.watch import open_watcher
from lemon_core.mcp.servers.freshness import Freshness
from tests.mcp.servers.lazy_fixtures import skill

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@linux
def test_watcher_sees_edits_additions_and_removals(tmp_path: Path) -> None:
    folder = skill(tmp_path, "one")
    watcher = open_watcher([str(tmp_path), str(folder), str(tmp_path / "missing")])
    assert watcher is not None and watcher.count == 2
    assert not watcher.changed()
    (folder / "SKILL.md").read_text()  # reading is not a change
    assert not watcher.changed()
    (folder / "SKILL.md").write_text("---\nname: one\n---\n")
    assert watcher.changed()
    assert not watcher.changed()  # drained
    skill(tmp_path, "two")
    assert watcher.changed()
    (folder / "SKILL.md").unlink()
    assert watcher.changed()
    watcher.close()


@attrs.define
class _Snap:
    version: int
    clean: bool = True

    def unchanged(self) -> bool:
        return self.clean


def test_freshness_without_a_watcher_checks_every_call(tmp_path: Path) -> None:
    builds: list[int] = []

    def build(previous: _Snap | None) -> _Snap:
        builds.append(1)
        return _Snap(len(builds))

    fresh = Freshness(build, lambda s: [], watch=False)
    assert not fresh.watching
    first = fresh.current()
    assert fresh.current() is first and len(builds) == 1
    first.clean = False
    assert fresh.current().version == 2 and fresh.rebuilds == 1


@linux
def test_freshness_with_a_watcher_rebuilds_only_after_an_event(tmp_path: Path) -> None:
    builds: list[int] = []

    def build(previous: _Snap | None) -> _Snap:
        builds.append(1)
        return _Snap(len(builds), clean=True)

    fresh = Freshness(build, lambda s: [str(tmp_path)])
    assert fresh.watching
    snapshot = fresh.current()
    snapshot.clean = False  # the stat check would say "changed", but no event came
    assert fresh.current() is snapshot and len(builds) == 1
    (tmp_path / "new").mkdir()
    assert fresh.current().version == 2
    fresh.close()
