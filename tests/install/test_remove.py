"""Removing: folder and record go together, after approval, or nothing changes; only what
lemon installed is deleted (issue 17 §3): a folder no record names is refused, local edits
are named and never discarded on ``approve=True`` alone."""

from __future__ import annotations

import pytest

from lemon_core.approval import ApprovalRefused
from lemon_core.errors import LemonError, NotFoundError
from lemon_core.install import pipeline, remove
from lemon_core.install.edits import EditsWouldBeLost
from lemon_core.install.moves import delete
from lemon_core.install.occupied import NotLemons
from lemon_core.install.pipeline import InstallRequest
from lemon_core.state.lockfile import read_lock_records, write_records
from tests.install.support import skill_folder, snapshot


def _installed(ctx, plugins, src, name="demo", extra=None, **options):
    return pipeline.install(InstallRequest(str(skill_folder(src, name, extra=extra)), approve=True, **options), ctx, plugins)


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


# -- only what lemon installed (issue 17 §3) ----------------------------------------------------


def _plant(root, kind, outside):
    """Something lemon did not install at ``root/mine``."""
    target = root / "mine"
    if kind == "hand-written skill":
        skill_folder(root, "mine", "my own words\n")
    elif kind == "folder of other files":
        target.mkdir(parents=True)
        (target / "notes.txt").write_text("mine\n")
    elif kind == "file":
        root.mkdir(parents=True, exist_ok=True)
        target.write_text("mine\n")
    else:
        root.mkdir(parents=True, exist_ok=True)
        skill_folder(outside, "theirs", "theirs\n")
        target.symlink_to(outside / "theirs", target_is_directory=True)
    return target


KINDS = ["hand-written skill", "folder of other files", "file", "symbolic link"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("local", [False, True])
def test_what_lemon_did_not_install_is_never_removed(ctx, plugins, agent, project, src,
                                                     tmp_path, recorder, kind, local) -> None:
    _installed(ctx, plugins, src, local=local)  # the scope has a lockfile and a record
    root = (project / ".lemon" / "skill") if local else (agent / "skill")
    _plant(root, kind, tmp_path / "outside")
    before = snapshot(agent, project, tmp_path / "outside")
    asked = []
    with pytest.raises(NotLemons) as caught:
        remove.remove("mine", ctx, plugins=plugins, local=local,
                      approve=lambda r: asked.append(r) or True)
    with pytest.raises(NotLemons):
        remove.remove("mine", ctx, plugins=plugins, local=local, approve=True,
                      discard_edits=True)
    message = str(caught.value)
    assert asked == [] and "nothing was deleted" in message and "delete it by hand" in message
    assert f"lemon skill disable mine{' --local' if local else ''}'" in message
    assert str(root / "mine") in message and "--force" not in message
    assert snapshot(agent, project, tmp_path / "outside") == before
    assert [(e.action, e.accepted) for e in recorder.written][-1] == ("remove", False)


def test_a_link_where_lemon_installed_a_folder_is_not_removed(ctx, plugins, agent, src,
                                                              tmp_path) -> None:
    _installed(ctx, plugins, src)
    target = agent / "skill" / "demo"
    delete(target, None)
    skill_folder(tmp_path / "outside", "theirs")
    target.symlink_to(tmp_path / "outside" / "theirs", target_is_directory=True)
    before = snapshot(agent, tmp_path / "outside")
    with pytest.raises(NotLemons, match="a symbolic link where lemon installed the folder"):
        remove.remove("demo", ctx, plugins=plugins, approve=True)
    assert snapshot(agent, tmp_path / "outside") == before


def test_a_record_whose_folder_is_gone_is_dropped(ctx, plugins, agent, src) -> None:
    _installed(ctx, plugins, src)
    delete(agent / "skill" / "demo", None)
    result = remove.remove("demo", ctx, plugins=plugins, approve=True)
    assert result.record is not None and "demo" not in read_lock_records(
        agent / "skills.lock.json")[0]


def _edited(ctx, plugins, src, agent):
    _installed(ctx, plugins, src, extra={"notes.md": "old\n", "gone.md": "x\n"})
    target = agent / "skill" / "demo"
    (target / "notes.md").write_text("my own notes\n")
    (target / "gone.md").unlink()
    (target / "mine.md").write_text("added by me\n")
    return target


def test_approve_in_advance_never_discards_local_edits(ctx, plugins, agent, src) -> None:
    _edited(ctx, plugins, src, agent)
    before = snapshot(agent)
    with pytest.raises(EditsWouldBeLost) as caught:
        remove.remove("demo", ctx, plugins=plugins, approve=True)
    message = str(caught.value)
    assert "edited notes.md; added mine.md; removed gone.md" in message
    assert "removing demo would discard them" in message and "discard_edits=True" in message
    with pytest.raises(ApprovalRefused, match="needs approval"):
        remove.remove("demo", ctx, plugins=plugins)
    with pytest.raises(ApprovalRefused, match="needs approval"):
        remove.remove("demo", ctx, plugins=plugins, discard_edits=True)
    assert snapshot(agent) == before


def test_discard_edits_removes_an_edited_skill(ctx, plugins, agent, src) -> None:
    _edited(ctx, plugins, src, agent)
    remove.remove("demo", ctx, plugins=plugins, approve=True, discard_edits=True)
    assert not (agent / "skill" / "demo").exists()
    assert "demo" not in read_lock_records(agent / "skills.lock.json")[0]


@pytest.mark.parametrize("answer", [False, True])
def test_a_person_is_asked_about_the_edits_by_name(ctx, plugins, agent, src, answer) -> None:
    _edited(ctx, plugins, src, agent)
    before = snapshot(agent)
    asked = []

    def approve(request):
        asked.append(request)
        return answer

    if answer:
        remove.remove("demo", ctx, plugins=plugins, approve=approve)
        assert not (agent / "skill" / "demo").exists()
    else:
        with pytest.raises(EditsWouldBeLost, match="not approved"):
            remove.remove("demo", ctx, plugins=plugins, approve=approve)
        assert snapshot(agent) == before
    (discard,) = asked  # one question, naming the files
    assert discard.stage == "discard" and discard.keys == ("demo",)
    assert set(discard.files) == {"notes.md", "mine.md", "gone.md"}
    assert any("edited notes.md" in note for note in discard.notes)


def test_a_record_without_file_hashes_still_refuses(ctx, plugins, agent, src) -> None:
    _edited(ctx, plugins, src, agent)
    data = read_lock_records(agent / "skills.lock.json")[0]["demo"].to_json()
    data.pop("file_hashes")
    write_records(agent / "skills.lock.json", {"demo": data})
    with pytest.raises(EditsWouldBeLost, match="cannot say which"):
        remove.remove("demo", ctx, plugins=plugins, approve=True)
    assert (agent / "skill" / "demo" / "mine.md").exists()


@pytest.mark.parametrize("edited", [False, True])
def test_an_edit_made_while_lemon_asks_is_kept(ctx, plugins, agent, src, edited) -> None:
    """The removal was approved for what was there then; a later edit refuses it."""
    if edited:
        target = _edited(ctx, plugins, src, agent)
    else:
        _installed(ctx, plugins, src)
        target = agent / "skill" / "demo"

    def approve(request):
        (target / "notes.md").write_text("written while asked\n")
        return True

    with pytest.raises(LemonError, match="changed while lemon was asking"):
        remove.remove("demo", ctx, plugins=plugins, approve=approve)
    assert (target / "notes.md").read_text() == "written while asked\n"
    assert "demo" in read_lock_records(agent / "skills.lock.json")[0]


def test_a_folder_planted_while_lemon_asks_is_kept(ctx, plugins, agent, src) -> None:
    """A record whose folder was gone when asked: a folder put there meanwhile stays."""
    _installed(ctx, plugins, src)
    target = agent / "skill" / "demo"
    delete(target, None)

    def approve(request):
        skill_folder(agent / "skill", "demo", "mine now\n")
        return True

    with pytest.raises(LemonError, match="changed while lemon was asking"):
        remove.remove("demo", ctx, plugins=plugins, approve=approve)
    assert "mine now" in (target / "SKILL.md").read_text()
