"""The first-load audit (:mod:`lemon_core.skills.load_audit`) in-process, with a counting
auditor: which skills it applies to, one audit per version, the verdict cache across
servers, and ``read_skill`` withholding before anything is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lemon_core.context import LemonContext
from lemon_core.protocols import Finding
from lemon_core.skills.agent import SkillUnavailableError, read_skill
from lemon_core.skills.load_audit import FirstLoadAudit, applies
from tests.helpers import write_skill


class Counting:
    """Blocks a bundle whose SKILL.md says ``EVIL``; counts its runs."""

    name = "counting"
    rules_version = "counting-1"

    def __init__(self) -> None:
        self.runs = 0

    def audit(self, bundle: Any) -> list[Finding]:
        self.runs += 1
        text = "".join(f.text or "" for f in bundle.files if f.path == "SKILL.md")
        return [Finding(rule="test.evil", severity="block", message="says EVIL")] \
            if "EVIL" in text else []


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".agents" / "skills", "bad", body="EVIL\n")
    write_skill(project / ".agents" / "skills", "good", body="Fine.\n")
    return project


def _entry(ctx: LemonContext, key: str) -> Any:
    from lemon_core.skills.api import list_skills

    return list_skills(ctx).get(key).entry


def test_applies_to_project_skills_lemon_did_not_install(project: Path) -> None:
    ctx = LemonContext.from_environment(cwd=project)
    write_skill(Path(ctx.home) / ".agents" / "skills", "mine")
    entry = _entry(ctx, "bad")
    assert applies(entry, None)
    assert not applies(entry, object())  # a lockfile record: audited at install
    assert not applies(_entry(ctx, "mine"), None)


def test_once_per_version_and_the_cache_across_servers(project: Path) -> None:
    ctx = LemonContext.from_environment(cwd=project)
    auditor, said = Counting(), []
    gate = FirstLoadAudit(ctx, auditors=[auditor], log=said.append)
    assert auditor.runs == 0  # nothing at construction
    bad = _entry(ctx, "bad")
    for _ in range(3):
        with pytest.raises(SkillUnavailableError) as withheld:
            gate.check(bad, None)
    assert auditor.runs == 1 and gate.runs == 1 and gate.blocked == {"bad"}
    assert "test.evil" in str(withheld.value) and "lemon skill audit bad" in str(withheld.value)
    assert said == [("audited skill 'bad' on its first load (it came with the project, not "
                     "through lemon): block")]

    other = FirstLoadAudit(ctx, auditors=[auditor], log=said.append)  # a restarted server
    with pytest.raises(SkillUnavailableError):
        other.check(bad, None)
    assert auditor.runs == 1 and other.runs == 0  # the verdict cache answered

    (Path(bad.dir) / "SKILL.md").write_text("---\nname: bad\ndescription: d\n---\nFixed.\n")
    other.check(bad, None)  # changed: audited again, and now served
    assert auditor.runs == 2 and other.blocked == set()


def test_read_skill_withholds_before_reading(project: Path) -> None:
    ctx = LemonContext.from_environment(cwd=project)
    gate = FirstLoadAudit(ctx, auditors=[Counting()], log=lambda _: None)
    with pytest.raises(SkillUnavailableError) as withheld:
        read_skill("bad", ctx, check=gate.check)
    assert withheld.value.state == "blocked"
    assert read_skill("good", ctx, check=gate.check).content.endswith("Fine.\n")
    assert read_skill("bad", ctx).content.endswith("EVIL\n")  # the library alone: no gate
