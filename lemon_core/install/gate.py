"""The audit gate of the install pipeline: one function, so the policy sits in one place.

:func:`audit` runs every registered auditor through
:func:`lemon_core.audit.host.audit_folder` on the staged folder (with no auditor registered
the verdict is ``pass`` with the note "no auditor ran"). :func:`allowed` says whether a
``block`` may still be installed: only with an override bound to exactly this bundle.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lemon_core.audit.host import AuditReport, audit_folder
from lemon_core.audit.overrides import override_allows
from lemon_core.context import LemonContext
from lemon_core.fsio.tree import TreeScan


def audit(folder: Path, ctx: LemonContext, *, key: str, scan: TreeScan,
          auditors: Sequence[Any]) -> AuditReport:
    return audit_folder(folder, ctx, key=key, scan=scan, auditors=auditors)


def allowed(report: AuditReport, override: Any) -> bool:
    """Whether ``override`` (an ``audit_override`` record) lets this blocked report install."""
    return override_allows(report, override)


#: How many blocking findings a refusal names (the rest are counted).
MAX_BLOCKING_SHOWN = 3


def _where(finding: Any) -> str:
    if not finding.path:
        return ""
    return f" ({finding.path}:{finding.line})" if finding.line else f" ({finding.path})"


def blocking_findings(report: AuditReport) -> str:
    """Why ``report`` blocks, in words: the findings that block it (each with its file and
    line), never only warnings listed before them; then how many warnings there are too."""
    blocking = [f for f in report.findings if f.severity == "block"]
    shown = "; ".join(f"{f.summary}{_where(f)}" for f in blocking[:MAX_BLOCKING_SHOWN])
    more = len(blocking) - MAX_BLOCKING_SHOWN
    extra = f" (and {more} more blocking)" if more > 0 else ""
    warned = len(report.findings) - len(blocking)
    if warned:
        extra += f", beside {warned} warning{'s' if warned > 1 else ''}"
    return (shown or "the audit's verdict is block") + extra


def finding_lines(report: AuditReport) -> tuple[str, ...]:
    """The findings as the lockfile records them: ``[severity] rule: message``."""
    return tuple(f.summary for f in report.findings)


__all__ = ["MAX_BLOCKING_SHOWN", "allowed", "audit", "blocking_findings", "finding_lines"]
