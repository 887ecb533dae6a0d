"""``browse``: categories from the manifest, the Hermes catalog or the group folder; the
not-ready view with what each skill lacks."""

from __future__ import annotations

import json
from pathlib import Path

from lemon_core.models import SkillEntry, SkillManifest
from lemon_core.skills.browse import browse, category_of
from tests.helpers import write_skill


def _catalog(project: Path) -> None:
    skills = project / ".lemon" / "skill"
    write_skill(skills, "k8s", "description: Roll out.\nrequires:\n  bins: [no-such-bin-i]\n"
                "metadata:\n  lemon:\n    category: devops\n")
    write_skill(skills, "arxiv", "description: Search papers.\n"
                "required_environment_variables: [NO_SUCH_VAR_I]\n")
    write_skill(skills, "helm", "description: Charts.\nmetadata:\n  lemon:\n"
                "    category: devops\n")
    write_skill(skills, "plain")
    write_skill(skills, "blocked", "description: Blocked one.\n")
    (project / ".lemon" / "skills.lock.json").write_text(json.dumps({"version": 1, "skills": {
        "arxiv": {"source_kind": "hermes", "source_id": "hermes:optional/research/arxiv"},
        "blocked": {"source_kind": "local", "source_id": "/x", "audit_status": "block"}}}))


def test_the_catalog_by_category_with_counts(make_ctx, project):
    _catalog(project)
    found = browse(make_ctx())
    assert found.categories == (("devops", 2), ("research", 1), ("uncategorized", 2))
    assert [(s.key, s.category, s.category_from) for s in found.skills] == [
        ("helm", "devops", "manifest"), ("k8s", "devops", "manifest"),
        ("arxiv", "research", "hermes"), ("blocked", "uncategorized", "none"),
        ("plain", "uncategorized", "none")]
    assert [s.key for s in browse(make_ctx(), category="devops").skills] == ["helm", "k8s"]
    assert browse(make_ctx(), category="nothing").skills == ()


def test_the_not_ready_view_says_what_each_lacks(make_ctx, project):
    _catalog(project)
    found = browse(make_ctx(), not_ready=True)
    assert {s.key: (s.state, s.lacks) for s in found.skills} == {
        "k8s": ("not_ready", ("binary no-such-bin-i",)),
        "arxiv": ("not_ready", ("environment variable NO_SUCH_VAR_I",)),
        "blocked": ("blocked", ("an audit that does not block it",))}
    assert found.to_json()["count"] == 3


def test_a_group_folder_is_the_category_when_nothing_else_names_one(tmp_path):
    def entry(folder: str, manifest: SkillManifest) -> SkillEntry:
        root = str(tmp_path)
        return SkillEntry("x", "project", root, f"{root}/{folder}", f"{root}/{folder}/SKILL.md",
                          manifest)

    assert category_of(entry("tools/x", SkillManifest()), None) == ("tools", "folder")
    assert category_of(entry("x", SkillManifest()), None) == ("uncategorized", "none")
    lemon = SkillManifest(metadata={"lemon": {"category": "languages/elixir"}})
    assert category_of(entry("tools/x", lemon), None) == ("languages/elixir", "manifest")
