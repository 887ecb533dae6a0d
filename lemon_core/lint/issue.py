"""The records lint reports: one issue, and the size bound every lint read shares."""

from __future__ import annotations

import attrs

#: The largest SKILL.md lint reads; a larger one is an error (its head is still checked).
MAX_SKILL_MD_BYTES = 1024 * 1024


@attrs.frozen
class LintIssue:
    """One problem (or fix): a stable ``code`` and a message saying what is wrong and what to
    do."""

    code: str
    message: str


__all__ = ["MAX_SKILL_MD_BYTES", "LintIssue"]
