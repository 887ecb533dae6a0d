"""Preview: sources resolved (never out of the bundle), audited, what would change, the digest;
real folders, the real local source, nothing written."""

from __future__ import annotations

import pytest

from lemon_core.blueprints import open_bundle, preview
from lemon_core.errors import UsageError
from tests.blueprints.support import write_bundle


def _plan(ctx, plugins, **kw):
    return preview(open_bundle(ctx, "team"), ctx, plugins, **kw)


def test_preview_resolves_audits_and_shows_what_would_change(ctx, plugins, agent,
                                                              project) -> None:
    write_bundle(agent)
    plan = _plan(ctx, plugins)
    assert plan.problems == () and plan.scope == "project"
    assert [(s.identifier, s.chosen, dict(s.changes)) for s in plan.skills] == [
        ("./skills/alpha", ("alpha",), {"alpha": "install"}),
        ("./skills/beta", ("beta",), {"beta": "install"})]
    assert [(s.name, s.change) for s in plan.servers] == [("docs", "add")]
    assert plan.digest == _plan(ctx, plugins).digest  # stable
    assert not (project / ".lemon").exists()  # nothing written
    small = _plan(ctx, plugins, profile="small")
    assert [s.label for s in small.skills] == ["./skills/alpha"] and small.servers == ()
    assert small.digest != plan.digest
    with pytest.raises(UsageError, match="no profile"):
        _plan(ctx, plugins, profile="ghost")


def test_the_digest_does_not_depend_on_where_the_bundle_lives(ctx, plugins, agent,
                                                               tmp_path) -> None:
    write_bundle(agent)
    other = write_bundle(tmp_path / "copy")
    here = _plan(ctx, plugins).digest
    there = preview(open_bundle(ctx, path=other), ctx, plugins).digest
    assert here == there


@pytest.mark.parametrize("source", ["../../x", "./skills/../../x", "/etc", "~/skills",
                                    "./missing"])
def test_a_source_outside_the_bundle_is_refused(ctx, plugins, agent, source, tmp_path) -> None:
    write_bundle(agent, manifest=f'version = 1\nname = "t"\n[[skills]]\nsource = "{source}"\n')
    with pytest.raises(UsageError):
        _plan(ctx, plugins)


def test_a_folder_outside_the_bundle_is_refused_however_it_is_named(ctx, plugins, agent,
                                                                    project) -> None:
    from tests.install.support import skill_folder

    skill_folder(project, "other")  # a skill folder in the working directory
    for source in (str(project / "other"), "other", "file://" + str(project / "other")):
        write_bundle(agent, manifest=f'version = 1\nname = "t"\n[[skills]]\n'
                                     f'source = "{source}"\n')
        with pytest.raises(UsageError):
            _plan(ctx, plugins)
