"""An :class:`~lemon_core.audit.host.AuditReport` as JSON data and as lines for people.

The JSON shape (stable keys; more may be added)::

    {"path", "key", "verdict": "pass"|"warn"|"block", "bundle_hash", "cached", "notes": [...],
     "auditors": [{"name", "rules_version"}],
     "findings": [{"rule", "family", "severity", "file", "line", "excerpt", "message",
                   "auditor"}]}

Findings' text was escaped and clamped by the host, so both forms are safe to print and to
paste into an agent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lemon_core.audit.host import AuditReport
from lemon_core.protocols import Finding
from lemon_core.text import escape

NO_FILE = "(the skill as a whole)"


def finding_json(finding: Finding) -> dict[str, Any]:
    return {"rule": finding.rule, "family": finding.family, "severity": finding.severity,
            "file": finding.path, "line": finding.line, "excerpt": finding.excerpt,
            "message": finding.message, "auditor": finding.auditor}


def report_json(report: AuditReport) -> dict[str, Any]:
    return {
        "path": report.path,
        "key": report.key,
        "verdict": report.verdict,
        "bundle_hash": report.bundle_hash,
        "cached": report.cached,
        "notes": list(report.notes),
        "auditors": [{"name": n, "rules_version": v} for n, v in report.auditors],
        "findings": [finding_json(f) for f in report.findings],
    }


def by_file(report: AuditReport) -> Iterator[tuple[str, list[Finding]]]:
    """The findings grouped by file, files in report order (the whole-skill group first)."""
    groups: dict[str, list[Finding]] = {}
    for finding in report.findings:
        groups.setdefault(finding.path or NO_FILE, []).append(finding)
    yield from groups.items()


def report_lines(report: AuditReport) -> list[str]:
    """The verdict, then each file's findings, every line escaped for a terminal."""
    lines = [f"{report.verdict.upper():5} {escape(report.path)} ({escape(report.key)})"]
    for path, findings in by_file(report):
        lines.append(f"  {path}")
        for f in findings:
            where = f"line {f.line}: " if f.line else ""
            lines.append(f"    {f.severity:5} {f.rule}: {where}{f.message}")
            if f.excerpt:
                lines.append(f"          | {f.excerpt}")
    lines.extend(f"  note: {note}" for note in report.notes)
    return lines


__all__ = ["NO_FILE", "by_file", "finding_json", "report_json", "report_lines"]
