"""Auditing texts in memory: a bundle of ``{path: text}`` and the worst severity per rule."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lemon_core.protocols import AuditBundle, AuditFile, Finding


def bundle_of(files: dict[str, str], key: str = "demo") -> AuditBundle:
    return AuditBundle(key=key, dir=Path("."), files=tuple(
        AuditFile(path=path, text=text, size=len(text)) for path, text in files.items()))


def worst_by_rule(findings: Iterable[Finding]) -> dict[str, str]:
    """rule -> worst severity."""
    out: dict[str, str] = {}
    for found in findings:
        if out.get(found.rule) != "block":
            out[found.rule] = found.severity
    return out
