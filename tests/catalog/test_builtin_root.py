"""The built-in skills as the catalog's lowest root (on unless ``LEMON_BUILTIN_SKILLS=0``)."""

from __future__ import annotations

from lemon_core import skills
from lemon_core.builtin_skills import FOLDER
from lemon_core.catalog.roots import builtin_root, global_roots
from tests.helpers import write_skill


def test_on_by_default_even_when_isolated_and_off_with_0(make_ctx, tmp_path):
    # make_ctx switches them off for every other test; an empty value counts as unset
    on = make_ctx(LEMON_BUILTIN_SKILLS="", LEMON_AGENT_DIR=str(tmp_path / "agent"))
    assert builtin_root(on) is not None
    assert skills.list(on).get("writing-skills") is not None
    assert builtin_root(make_ctx(LEMON_BUILTIN_SKILLS="0")) is None
    assert skills.list(make_ctx(LEMON_BUILTIN_SKILLS="0")).get("writing-skills") is None


def test_listed_below_every_other_root(make_ctx, home):
    ctx = make_ctx(LEMON_BUILTIN_SKILLS="1")
    assert global_roots(ctx)[-1].path == FOLDER
    item = skills.list(ctx).get("writing-skills")
    assert item is not None and item.entry.dir == str(FOLDER / "writing-skills")
    assert item.status.state == "active" and item.scope == "builtin"


def test_any_other_copy_wins_over_the_builtin(make_ctx, home):
    write_skill(home / ".lemon" / "agent" / "skill", "writing-skills")
    item = skills.list(make_ctx(LEMON_BUILTIN_SKILLS="1")).get("writing-skills")
    assert item.entry.dir == str(home / ".lemon" / "agent" / "skill" / "writing-skills")
    assert item.entry.shadowed == (str(FOLDER / "writing-skills" / "SKILL.md"),)
    assert item.scope == "global"  # the copy in the agent dir, not the shipped one
