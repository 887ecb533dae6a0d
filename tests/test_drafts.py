"""Drafts (issue 21 §4): generate, list, review, publish through the audited write, delete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemon_core.drafts import (
    DraftExists,
    delete_draft,
    drafts_dir,
    generate_draft,
    list_drafts,
    publish_draft,
    review_draft,
)
from lemon_core.errors import LemonError, NotFoundError, UsageError
from lemon_core.lint.runner import lint_paths
from lemon_core.state.lockfile import read_lock_records
from tests.helpers import run_cli

LESSONS = "Run the migrations before the tests.\n\n## Steps\n\n1. Run `make migrate`.\n"


def test_a_generated_draft_passes_lint_standard_and_is_no_skill(make_ctx, project):
    from lemon_core import skills

    ctx = make_ctx()
    folder = generate_draft("db-migrations", "Use when running database tests: migrate first.",
                            ctx, body=LESSONS, local=True)
    assert folder == project / ".lemon" / "drafts" / "db-migrations"
    result = lint_paths([folder], standard=True)[0]
    assert result.ok, result.errors
    assert "make migrate" in (folder / "SKILL.md").read_text()
    # the outline of `lemon skill new` without a body
    outline = generate_draft("outline", "Use when testing drafts.", ctx, local=True)
    assert lint_paths([outline], standard=True)[0].ok
    assert "## Steps" in (outline / "SKILL.md").read_text()
    # not offered to agents
    listing = skills.list(workspace=skills.Workspace.open(ctx))
    assert listing.get("db-migrations") is None and listing.get("outline") is None
    assert [(d.name, d.exists_as_skill) for d in list_drafts(ctx, local=True)] == [
        ("db-migrations", False), ("outline", False)]
    assert list_drafts(ctx, local=False) == []


def test_generate_refuses_bad_input_and_an_existing_draft(make_ctx):
    ctx = make_ctx()
    with pytest.raises(UsageError, match="not a skill name"):
        generate_draft("Bad_Name", "Use when x.", ctx, local=True)
    with pytest.raises(UsageError, match="description"):
        generate_draft("ok", "   ", ctx, local=True)
    generate_draft("ok", "Use when testing.", ctx, local=True)
    with pytest.raises(DraftExists):
        generate_draft("ok", "Use when testing again.", ctx, local=True)
    generate_draft("ok", "Use when testing again.", ctx, local=True, replace=True)
    assert "again" in (drafts_dir(ctx, local=True) / "ok" / "SKILL.md").read_text()


def test_review_shows_lint_audit_and_the_difference(make_ctx, project):
    ctx = make_ctx()
    generate_draft("notes", "Use when testing reviews.", ctx, body="First text.\n", local=True)
    review = review_draft("notes", ctx, local=True)
    assert review["lint"]["ok"] and review["verdict"] == "pass"
    assert review["existing"] is None and review["diff"] is None
    publish_draft("notes", ctx, local=True, approve=True)
    generate_draft("notes", "Use when testing reviews.", ctx, body="Second text.\n", local=True)
    review = review_draft("notes", ctx, local=True)
    assert review["existing"] == str(project / ".lemon" / "skill" / "notes")
    assert "-First text." in review["diff"] and "+Second text." in review["diff"]


def test_publish_goes_through_the_audited_write(make_ctx, project):
    ctx = make_ctx()
    generate_draft("notes", "Use when testing publishing.", ctx, body=LESSONS, local=True)
    with pytest.raises(LemonError, match="approval"):
        publish_draft("notes", ctx, local=True, approve=None)
    assert (drafts_dir(ctx, local=True) / "notes").is_dir()
    result = publish_draft("notes", ctx, local=True, approve=True)
    target = project / ".lemon" / "skill" / "notes"
    assert result.written[0].path == str(target) and result.written[0].verdict == "pass"
    record = read_lock_records(project / ".lemon" / "skills.lock.json")[0]["notes"]
    assert (record.source_kind, record.identifier) == ("draft", "draft:notes")
    assert not (drafts_dir(ctx, local=True) / "notes").exists()
    # a second publish of that name must say --replace
    generate_draft("notes", "Use when testing publishing.", ctx, body="New.\n", local=True)
    with pytest.raises(UsageError, match="--replace"):
        publish_draft("notes", ctx, local=True, approve=True)
    publish_draft("notes", ctx, local=True, approve=True, replace=True)
    assert "New." in (target / "SKILL.md").read_text()


def test_a_blocked_draft_is_not_published(make_ctx, project):
    ctx = make_ctx()
    folder = generate_draft("sneaky", "Use when testing the audit.", ctx, local=True)
    text = (folder / "SKILL.md").read_text()
    (folder / "SKILL.md").write_text(text + "hidden \U000e0069\U000e0067\U000e006e text\n")
    assert review_draft("sneaky", ctx, local=True)["verdict"] == "block"
    with pytest.raises(LemonError, match="block"):
        publish_draft("sneaky", ctx, local=True, approve=True)
    assert not (project / ".lemon" / "skill" / "sneaky").exists()
    assert folder.is_dir()


def test_delete_removes_only_the_draft(make_ctx, tmp_path):
    ctx = make_ctx()
    folder = generate_draft("gone", "Use when testing deletes.", ctx, local=True)
    delete_draft("gone", ctx, local=True)
    assert not folder.exists()
    with pytest.raises(NotFoundError):
        delete_draft("gone", ctx, local=True)
    # a link planted as a draft is neither listed nor followed
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    (drafts_dir(ctx, local=True) / "planted").symlink_to(outside)
    assert list_drafts(ctx, local=True) == []
    with pytest.raises(NotFoundError):
        delete_draft("planted", ctx, local=True)
    assert (outside / "keep").exists()


def test_the_cli_round_trip(capsys, make_ctx, project, tmp_path, monkeypatch):
    lessons = tmp_path / "lessons.md"
    lessons.write_text(LESSONS)
    cwd = ("--local", "--cwd", str(project))
    code, out, err = run_cli(capsys, "skill", "draft", "generate", "db", "--description",
                             "Use when testing the CLI.", "--from", str(lessons), *cwd, "--json")
    assert code == 0, err
    assert Path(json.loads(out)["path"]).name == "db"
    code, out, _ = run_cli(capsys, "skill", "draft", "list", *cwd, "--json")
    assert [d["name"] for d in json.loads(out)["drafts"]] == ["db"]
    code, out, _ = run_cli(capsys, "skill", "draft", "review", "db", *cwd)
    assert code == 0 and "Lint --standard: ok" in out and "Audit: pass" in out
    code, out, _ = run_cli(capsys, "skill", "draft", "publish", "db", *cwd, "--approve",
                           "--json")
    assert code == 0 and json.loads(out)["verdict"] == "pass"
    assert (project / ".lemon" / "skill" / "db" / "SKILL.md").exists()
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("From stdin.\n"))
    code, out, _ = run_cli(capsys, "skill", "draft", "generate", "db", "--description",
                           "Use when testing stdin.", "--from", "-", *cwd)
    assert code == 0
    code, out, _ = run_cli(capsys, "skill", "draft", "review", "db", *cwd)
    assert "+From stdin." in out
    code, out, _ = run_cli(capsys, "skill", "draft", "delete", "db", *cwd)
    assert code == 0 and "Deleted" in out
    code, _, err = run_cli(capsys, "skill", "draft", "delete", "db", *cwd)
    assert code != 0 and "no draft" in err


def test_save_draft_keeps_only_a_skill_md_that_passes_lint(make_ctx):
    from lemon_core.drafts import save_draft

    ctx = make_ctx()
    with pytest.raises(UsageError, match="lint --standard"):
        save_draft("half", "---\nname: half\n---\nNo description.\n", ctx, local=True)
    assert not (drafts_dir(ctx, local=True) / "half").exists()
    with pytest.raises(UsageError, match="lint --standard"):
        save_draft("other", "---\nname: not-other\ndescription: Use when x.\n---\nx\n", ctx,
                   local=True)
    folder = save_draft("whole", "---\nname: whole\ndescription: Use when testing.\n---\nDo.\n",
                        ctx, local=True)
    assert [d.name for d in list_drafts(ctx, local=True)] == ["whole"]
    assert folder.name == "whole"
