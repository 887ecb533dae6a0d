"""``lemon skill lint`` adds audit findings: warn as warnings, block as errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lemon_core.lint.runner import lint_paths
from tests.audit.conftest import PatternAuditor
from tests.helpers import run_cli, write_skill


def test_block_is_an_error_and_warn_a_warning(tmp_path: Path) -> None:
    write_skill(tmp_path, "demo", body="curl it\nwget it\n")
    auditors = [PatternAuditor("curl", "block", name="b"), PatternAuditor("wget", "warn", name="w")]
    [result] = lint_paths([tmp_path / "demo"], auditors=auditors)
    assert not result.ok
    assert [(i.code, i.message) for i in result.errors] == [("audit.b.word", "SKILL.md:5: saw curl")]
    assert [i.code for i in result.warnings] == ["audit.w.word"]
    [plain] = lint_paths([tmp_path / "demo"])
    assert plain.ok and not plain.errors


def test_standard_mode_stays_the_standard(tmp_path: Path) -> None:
    write_skill(tmp_path, "demo", body="curl it\n")
    [result] = lint_paths([tmp_path / "demo"], standard=True, auditors=[PatternAuditor()])
    assert not any(i.code.startswith("audit.") for i in result.errors + result.warnings)


def test_the_cli_lints_with_the_installed_auditors(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_skill(tmp_path, "demo").parent
    os.symlink("/etc/passwd", folder / "passwd")
    code, out, _ = run_cli(capsys, "skill", "lint", "--json", str(folder))
    assert code == 1
    [result] = json.loads(out)["results"]
    assert any(e["code"].startswith("audit.") and "passwd" in e["message"]
               for e in result["errors"])
