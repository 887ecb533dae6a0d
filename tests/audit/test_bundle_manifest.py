"""The audit reads SKILL.md with the manifest reader install uses (issue 17 §8): a TOML
frontmatter nesting bomb, which ``install`` refuses, is no longer a ``PASS`` of ``lemon skill
audit``; both say the same reason. Real folders, the real CLI in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lemon_core.audit.host import audit_folder
from tests.helpers import run_cli

REASON = "the frontmatter nests more than 64 levels deep; flatten it [frontmatter_too_deep]"


def _bomb(root: Path, levels: int = 2000) -> Path:
    folder = root / "bomb"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        '+++\nname = "bomb"\ndescription = "Use when testing a nesting bomb."\n'
        f"x = {'[' * levels}{']' * levels}\n+++\n# Bomb\nBody.\n", encoding="utf-8")
    return folder


def _tables(root: Path, levels: int = 200) -> Path:
    folder = root / "tables"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        '+++\nname = "tables"\ndescription = "Use when testing nested tables."\n'
        f"[{'.'.join(['t'] * levels)}]\nv = 1\n+++\nBody.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("make", [_bomb, _tables])
def test_the_audit_blocks_what_install_refuses_with_the_same_reason(
        make, tmp_path: Path) -> None:
    folder = make(tmp_path / "src")
    report = audit_folder(folder, use_cache=False)
    assert report.verdict == "block"
    invalid = [f for f in report.findings if f.rule == "manifest.invalid"]
    assert len(invalid) == 1 and REASON in invalid[0].message


@pytest.fixture
def cli_home(home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    return home


def test_lemon_skill_audit_and_install_agree(capsys, cli_home: Path, tmp_path: Path) -> None:
    folder = _bomb(tmp_path / "src")
    code, out, _ = run_cli(capsys, "skill", "audit", str(folder))
    assert code == 1 and out.startswith("BLOCK") and REASON in out
    code, out, _ = run_cli(capsys, "skill", "audit", str(folder), "--json")
    (result,) = json.loads(out)["results"]
    assert result["verdict"] == "block"
    assert any(f["rule"] == "manifest.invalid" and REASON in f["message"]
               for f in result["findings"])
    code, _, err = run_cli(capsys, "skill", "install", str(folder), "--approve")
    assert code == 1 and REASON in err and "nothing was installed" in err
