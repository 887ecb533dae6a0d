"""Small auditors for the host's tests (the real ones are tested under tests/plugins)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from lemon_core.protocols import AuditBundle, Finding


class PatternAuditor:
    """Flags ``word`` in any decoding of any file, with the line it is on."""

    def __init__(self, word: str = "curl", severity: str = "block", name: str = "pattern",
                 rules_version: str | None = "1") -> None:
        self.name = name
        self.word = word
        self.severity = severity
        if rules_version is not None:
            self.rules_version = rules_version
        self.rules = {f"{name}.word": (severity, f"the word {word}")}
        self.calls = 0
        self.seen: list[AuditBundle] = []

    def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
        self.calls += 1
        self.seen.append(bundle)
        for f in bundle.files:
            for text in f.texts:
                at = text.find(self.word)
                if at >= 0:
                    yield Finding(rule=f"{self.name}.word", severity=self.severity,  # type: ignore[arg-type]
                                  message=f"saw {self.word}", path=f.path,
                                  line=text.count("\n", 0, at) + 1,
                                  excerpt=text[max(0, at - 10):at + 40], family="code")
                    break


class Crashing:
    name = "crashing"
    rules_version = "1"

    def audit(self, bundle: AuditBundle) -> Iterable[Finding]:
        raise RuntimeError("boom \x1b[2J")


@pytest.fixture
def skill(tmp_path: Path) -> Callable[..., Path]:
    def make(files: dict[str, Any] | None = None, name: str = "demo") -> Path:
        folder = tmp_path / name
        folder.mkdir()
        content = {"SKILL.md": f"---\nname: {name}\ndescription: Use when testing.\n---\nBody\n"}
        content.update(files or {})
        for rel, data in content.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(data, bytes):
                path.write_bytes(data)
            else:
                path.write_text(data, encoding="utf-8")
        return folder

    return make
