"""Local edits are never discarded without a word (issue 17 §3): ``update``, ``sync`` and
``--force`` over a recorded skill whose files changed name the files and ask; an approval
given in advance is not enough, only ``discard_edits`` is."""

from __future__ import annotations

import pytest

from lemon_core.install import pipeline
from lemon_core.install.edits import EditsWouldBeLost, local_edits
from lemon_core.install.pipeline import InstallRequest
from lemon_core.install.sync import sync
from lemon_core.install.update import update
from lemon_core.state.lockfile import read_lock_records, write_records
from tests.install.support import skill_folder, snapshot


@pytest.fixture
def installed(ctx, plugins, src):
    folder = skill_folder(src, "demo", extra={"notes.md": "old\n", "gone.md": "x\n"})
    pipeline.install(InstallRequest(str(folder), approve=True), ctx, plugins)
    return folder


def _edit(agent) -> None:
    target = agent / "skill" / "demo"
    (target / "notes.md").write_text("my own notes\n")
    (target / "gone.md").unlink()
    (target / "mine.md").write_text("added by me\n")


def _record(agent):
    return read_lock_records(agent / "skills.lock.json")[0]["demo"]


def test_the_edits_are_named(agent, installed) -> None:
    _edit(agent)
    edits = local_edits(agent / "skill" / "demo", _record(agent))
    assert (edits.changed, edits.added, edits.removed) == (("notes.md",), ("mine.md",),
                                                           ("gone.md",))
    assert "edited notes.md; added mine.md; removed gone.md" in edits.summary()


def test_an_unedited_skill_has_no_edits(agent, installed) -> None:
    assert not local_edits(agent / "skill" / "demo", _record(agent))


RUNS = {
    "update": lambda ctx, plugins, **kw: update(("demo",), ctx, plugins=plugins, **kw),
    "force": lambda ctx, plugins, src=None, **kw: pipeline.install(InstallRequest(str(src / "demo"), force=True, **kw), ctx, plugins),
    "sync": lambda ctx, plugins, **kw: sync(ctx, plugins=plugins, **kw),
}


@pytest.mark.parametrize("how", sorted(RUNS))
def test_approve_in_advance_never_discards_edits(ctx, plugins, agent, src, installed,
                                                 how) -> None:
    _edit(agent)
    before = snapshot(agent)
    kw = {"src": src} if how == "force" else {}
    with pytest.raises(EditsWouldBeLost) as caught:
        RUNS[how](ctx, plugins, approve=True, **kw)
    message = str(caught.value)
    assert "notes.md" in message and "mine.md" in message and "gone.md" in message
    assert "discard_edits=True" in message and "nothing was changed" in message
    from lemon_core.cli.voice import said

    assert "pass --discard-edits" in said(caught.value)  # the CLI reads it as its flag
    assert snapshot(agent) == before


@pytest.mark.parametrize("how", sorted(RUNS))
def test_discard_edits_says_it_explicitly(ctx, plugins, agent, src, installed, how) -> None:
    _edit(agent)
    kw = {"src": src} if how == "force" else {}
    RUNS[how](ctx, plugins, approve=True, discard_edits=True, **kw)
    assert (agent / "skill" / "demo" / "notes.md").read_text() == "old\n"
    assert not (agent / "skill" / "demo" / "mine.md").exists()


@pytest.mark.parametrize("answer", [False, True])
def test_a_person_is_asked_by_name(ctx, plugins, agent, installed, answer) -> None:
    _edit(agent)
    before = snapshot(agent)
    asked = []

    def approve(request):
        asked.append(request)
        return answer if request.stage == "discard" else True

    if answer:
        update(("demo",), ctx, plugins=plugins, approve=approve)
        assert (agent / "skill" / "demo" / "notes.md").read_text() == "old\n"
    else:
        with pytest.raises(EditsWouldBeLost, match="not approved"):
            update(("demo",), ctx, plugins=plugins, approve=approve)
        assert snapshot(agent) == before
    (discard,) = [r for r in asked if r.stage == "discard"]
    assert discard.keys == ("demo",) and set(discard.files) == {"notes.md", "mine.md",
                                                                "gone.md"}
    assert any("edited notes.md" in note for note in discard.notes)


def test_a_record_without_file_hashes_still_refuses(ctx, plugins, agent, installed) -> None:
    lockfile = agent / "skills.lock.json"
    data = _record(agent).to_json()
    data.pop("file_hashes")
    write_records(lockfile, {"demo": data})
    assert _record(agent).file_hashes is None
    _edit(agent)
    with pytest.raises(EditsWouldBeLost, match="cannot say which"):
        update(("demo",), ctx, plugins=plugins, approve=True)
    assert (agent / "skill" / "demo" / "mine.md").exists()


def test_an_edit_made_while_lemon_asks_is_kept(ctx, plugins, agent, installed) -> None:
    """The discard was approved for what was there then; a later edit refuses the replace."""
    target = agent / "skill" / "demo"
    (target / "notes.md").write_text("first edit\n")

    def approve(request):
        if request.stage == "install":  # after the discard question, before activation
            (target / "notes.md").write_text("second edit, while asked\n")
        return True

    with pytest.raises(Exception, match="changed while lemon was asking"):
        pipeline.install(InstallRequest(str(installed), force=True, approve=approve), ctx, plugins)
    assert (target / "notes.md").read_text() == "second edit, while asked\n"
