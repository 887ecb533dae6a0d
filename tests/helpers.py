"""Helpers shared by the tests: writing skills, running the CLI in-process."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lemon_core.cli import main


def write_skill(root: Path, key: str, frontmatter: str | None = None, body: str = "Body.\n",
                *, name: str | None = None, description: str | None = None) -> Path:
    """Create ``root/key/SKILL.md``; without ``frontmatter`` a minimal YAML one is written."""
    if frontmatter is None:
        frontmatter = (f"name: {name or key}\n"
                       f"description: {description or 'Use when testing ' + key + '.'}\n")
    folder = root / key
    folder.mkdir(parents=True, exist_ok=True)
    text = f"---\n{textwrap.dedent(frontmatter)}---\n{body}"
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder / "SKILL.md"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``lemon *argv`` in this process: (exit code, stdout, stderr)."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err
