"""Helpers of the language readers' tests: facts grouped by kind, and the capabilities
auditor's verdict on a skill held in memory."""

from __future__ import annotations

from typing import Any

from lemon_plugins.auditors.capabilities import CapabilitiesAuditor

from lemon_core.auditor_kit.capabilities.model import Fact
from tests.plugins.auditors.bundles import bundle_of, worst_by_rule


def by_kind(found: Any) -> dict[str, list[Fact]]:
    """The facts a reader found (it must have parsed the text), by kind."""
    assert found.parsed, found.error
    out: dict[str, list[Fact]] = {}
    for fact in found.facts:
        out.setdefault(fact.kind, []).append(fact)
    return out


def verdict(files: dict[str, str]) -> dict[str, str]:
    """rule -> worst severity, for a skill of ``{path: text}``."""
    return worst_by_rule(CapabilitiesAuditor().audit(bundle_of(files)))


def blocks_with(head: str, name: str, body: str) -> bool:
    """Whether a skill of ``head`` (its SKILL.md) and ``body`` at ``name`` is blocked."""
    return "block" in verdict({"SKILL.md": head, name: body}).values()
