"""Helpers shared by the tests: writing skills, running the CLI in-process."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

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


class FakeSource:
    """A skill source that satisfies the protocol and accepts nothing (tests override
    ``parse``). ``order=None`` leaves the attribute out, to test the host's checks."""

    def __init__(self, name: str, order: object = 10) -> None:
        self.name = name
        if order is not None:
            self.order = order

    def parse(self, identifier: str) -> Any:
        return None

    def trust_level(self, ref: Any) -> str:
        return "community"

    def fetch(self, ref: Any, dest: Any, ctx: Any, progress: Any) -> None:
        pass

    def upstream_hash(self, ref: Any, ctx: Any) -> None:
        return None

    def search(self, query: str, ctx: Any, limit: int) -> list[Any]:
        return []


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``lemon *argv`` in this process: (exit code, stdout, stderr)."""
    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err
