"""``publish_index``: a folder of skills written as both well-known index versions."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile

import pytest

from lemon_core.errors import LemonError, UsageError
from lemon_core.skills.publish import publish_index
from lemon_core.source_kit.wellknown import SCHEMA_V2, parse_index
from tests.helpers import write_skill


def test_both_versions_are_written_in_their_published_shapes(tmp_path):
    src = tmp_path / "src"
    write_skill(src / "team", "alpha", description="First   skill.")
    write_skill(src, "beta")
    (src / "beta" / "run.sh").write_text("echo\n")
    os.chmod(src / "beta" / "run.sh", 0o755)
    report = publish_index(src, tmp_path / "site")
    assert [(s.name, s.kind, s.folder) for s in report.skills] == [
        ("alpha", "skill-md", "team/alpha"), ("beta", "archive", "beta")]
    v2 = json.loads((tmp_path / "site/.well-known/agent-skills/index.json").read_text())
    assert v2["$schema"] == SCHEMA_V2
    assert [set(s) for s in v2["skills"]] == [{"name", "type", "description", "url",
                                              "digest"}] * 2
    assert v2["skills"][0]["description"] == "First skill."
    for entry in v2["skills"]:
        data = (tmp_path / "site/.well-known/agent-skills" / entry["url"]).read_bytes()
        assert entry["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
    with tarfile.open(tmp_path / "site/.well-known/agent-skills/beta.tar.gz") as archive:
        members = {m.name: m for m in archive.getmembers()}
    assert sorted(members) == ["SKILL.md", "run.sh"]  # at the archive's root
    assert members["run.sh"].mode == 0o755 and members["run.sh"].mtime == 0
    v1 = json.loads((tmp_path / "site/.well-known/skills/index.json").read_text())
    assert v1 == {"skills": [
        {"name": "alpha", "description": "First skill.", "files": ["SKILL.md"]},
        {"name": "beta", "description": "Use when testing beta.",
         "files": ["SKILL.md", "run.sh"]}]}
    assert (tmp_path / "site/.well-known/skills/beta/run.sh").read_text() == "echo\n"
    # lemon's own reader takes both
    assert len(parse_index(v2, "http://h/.well-known/agent-skills/index.json", 2)[0]) == 2
    assert len(parse_index(v1, "http://h/.well-known/skills/index.json", 1)[0]) == 2


def test_the_same_files_publish_to_the_same_bytes(tmp_path):
    write_skill(tmp_path / "src", "beta")
    (tmp_path / "src" / "beta" / "notes.md").write_text("n\n")
    first = publish_index(tmp_path / "src", tmp_path / "a").skills[0].digest
    os.utime(tmp_path / "src" / "beta" / "notes.md", (1, 1))
    assert publish_index(tmp_path / "src", tmp_path / "b").skills[0].digest == first
    data = (tmp_path / "b/.well-known/agent-skills/beta.tar.gz").read_bytes()
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        assert archive.getnames() == ["SKILL.md", "notes.md"]


def test_what_cannot_be_published_is_refused_and_nothing_written(tmp_path):
    src = tmp_path / "src"
    write_skill(src, "ok")
    write_skill(src, "linked")
    os.symlink("/etc/passwd", src / "linked" / "passwd")
    with pytest.raises(LemonError, match="nothing was published"):
        publish_index(src, tmp_path / "site")
    assert not (tmp_path / "site").exists()
    os.unlink(src / "linked" / "passwd")
    write_skill(src, "Bad_Name")
    with pytest.raises(LemonError, match="not an Agent Skills name"):
        publish_index(src, tmp_path / "site")


def test_usage_errors(tmp_path):
    with pytest.raises(UsageError, match="holds no skill"):
        (tmp_path / "empty").mkdir()
        publish_index(tmp_path / "empty", tmp_path / "site")
    write_skill(tmp_path / "src" / "a", "x", name="same")
    write_skill(tmp_path / "src" / "b", "y", name="same")
    with pytest.raises(UsageError, match="two skills are named 'same'"):
        publish_index(tmp_path / "src", tmp_path / "site")
    with pytest.raises(UsageError, match="lies inside"):
        publish_index(tmp_path / "src", tmp_path / "src" / "site")


def test_a_link_planted_in_the_site_is_not_written_through(tmp_path):
    write_skill(tmp_path / "src", "beta")
    site = tmp_path / "site"
    (site / ".well-known").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", site / ".well-known" / "skills")
    with pytest.raises(LemonError):
        publish_index(tmp_path / "src", site)
    assert list((tmp_path / "elsewhere").iterdir()) == []
