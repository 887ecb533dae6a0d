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


def finding_lines(report: AuditReport) -> tuple[str, ...]:
    """The findings as the lockfile records them: ``[severity] rule: message``."""
    return tuple(f.summary for f in report.findings)


__all__ = ["allowed", "audit", "finding_lines"]
