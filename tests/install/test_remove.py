"""Removing: folder and record go together, after approval, or nothing changes."""

from __future__ import annotations

import pytest

from lemon_core.errors import NotFoundError
from lemon_core.install import pipeline, remove
from lemon_core.install.approval import ApprovalRefused
from lemon_core.state.lockfile import read_lock_records
from tests.install.support import skill_folder, snapshot


def _installed(ctx, plugins, src, name="demo", **options):
    return pipeline.install(str(skill_folder(src, name)), ctx, plugins=plugins, approve=True,
                            **options)


def test_remove_takes_folder_and_record(ctx, plugins, agent, src, recorder) -> None:
    _installed(ctx, plugins, src)
    _installed(ctx, plugins, src, "other")
    asked = []
    result = remove.remove("demo", ctx, plugins=plugins,
                           approve=lambda r: asked.append(r) or True)
    assert [r.stage for r in asked] == ["remove"] and asked[0].trust == "trusted"
    assert result.scope == "global" and result.record.key == "demo"
    assert not (agent / "skill" / "demo").exists()
    assert set(read_lock_records(agent / "skills.lock.json")[0]) == {"other"}
    assert sorted(p.name for p in (agent / "skill").iterdir()) == ["other"]
    assert [(e.action, e.accepted) for e in recorder.written][-1] == ("remove", True)


def test_remove_needs_approval(ctx, plugins, agent, src) -> None:
    _installed(ctx, plugins, src)
    before = snapshot(agent)
    with pytest.raises(ApprovalRefused, match="needs approval"):
        remove.remove("demo", ctx, plugins=plugins)
    with pytest.raises(ApprovalRefused, match="not approved"):
        remove.remove("demo", ctx, plugins=plugins, approve=lambda r: False)
    assert snapshot(agent) == before


def test_the_project_copy_goes_first(ctx, plugins, agent, project, src) -> None:
    _installed(ctx, plugins, src)
    _installed(ctx, plugins, src, local=True, force=True)
    assert remove.remove("demo", ctx, plugins=plugins, approve=True).scope == "project"
    assert (agent / "skill" / "demo").exists()
    assert remove.remove("demo", ctx, plugins=plugins, approve=True).scope == "global"
    with pytest.raises(NotFoundError, match="no skill 'demo' is installed"):
        remove.remove("demo", ctx, plugins=plugins, approve=True)


@pytest.mark.parametrize("error", [RuntimeError("injected"), KeyboardInterrupt()])
def test_a_failed_refresh_puts_folder_and_record_back(ctx, plugins, agent, src, error) -> None:
    _installed(ctx, plugins, src)
    before = snapshot(agent)

    def failing() -> None:
        raise error

    with pytest.raises(type(error)):
        remove.remove("demo", ctx, plugins=plugins, approve=True, refresh=failing)
    assert snapshot(agent) == before
