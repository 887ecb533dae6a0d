"""docs/audit-policy.md is the table the built-in auditors and the host declare."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from lemon_core.audit.policy import HOST_RULES
from lemon_core.audit.policy_doc import builtin_auditors, policy_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit-policy.md"


def test_the_published_policy_is_up_to_date() -> None:
    expected = policy_markdown(builtin_auditors())
    assert DOC.read_text(encoding="utf-8") == expected, (
        "docs/audit-policy.md is stale: run "
        "python -m lemon_core.audit.policy_doc --write docs/audit-policy.md")


def test_every_rule_has_a_severity_and_a_reason() -> None:
    for auditor in builtin_auditors():
        rules = getattr(auditor, "rules", {})
        assert rules, f"auditor {auditor.name} publishes no rules"
        for rule, (severity, why) in {**rules, **HOST_RULES}.items():
            assert severity in ("warn", "block"), rule
            assert why.strip(), rule


def test_the_table_is_built_from_the_rules() -> None:
    class One:
        name = "one"
        rules_version = "7"
        rules: ClassVar[dict[str, tuple[str, str]]] = {"one.x": ("warn", "because | pipes")}

    text = policy_markdown([One()])
    assert "## one (rules version `7`)" in text
    assert "| `one.x` | warn | because \\| pipes |" in text
