"""Exact-bundle overrides: the user's approval of one audited bundle, and nothing else.

An override is the lockfile record field ``audit_override``::

    {"bundle_hash": "sha256:…", "approved_at": "2026-12-01T20:00:00Z", "rules": ["code.…"]}

It allows a report only when the report's bundle hash is known and equal to the override's
(so one changed byte, or a bundle the host could not read whole, needs a new approval) and
every rule that fired is among the approved ``rules`` (so a rule added or changed since the
approval, firing on the same bytes, needs a new approval too). An override without a ``rules``
list (or with an empty one: a record written before rules were recorded) is bound to the hash
alone; :func:`make_override` always records the rules. The install pipeline checks it again immediately before it
activates a skill, against a fresh audit of the staged bytes.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from lemon_core.audit.host import AuditReport


def _field(override: Any, name: str) -> Any:
    if isinstance(override, Mapping):
        return override.get(name)
    return getattr(override, name, None)


def override_allows(report: AuditReport, override: Any) -> bool:
    """True when ``override`` (a mapping or an object with the same attributes; None allows
    nothing) was given for exactly this bundle and covers every rule that fired in ``report``.
    """
    if override is None or report.bundle_hash is None:
        return False
    wanted = _field(override, "bundle_hash")
    if not isinstance(wanted, str) or not hmac.compare_digest(
            wanted.encode("utf-8", "surrogatepass"),
            report.bundle_hash.encode("utf-8", "surrogatepass")):
        return False
    rules = _field(override, "rules")
    if rules is None or (not isinstance(rules, str) and len(rules) == 0):
        return True
    if isinstance(rules, str) or not all(isinstance(r, str) for r in rules):
        return False  # a malformed record approves nothing
    approved = set(rules)
    return all(rule in approved for rule in report.rules)


def make_override(report: AuditReport, approved_at: str | None = None) -> dict[str, Any]:
    """The ``audit_override`` record approving ``report``'s bundle and the rules that fired.

    :raises ValueError: when the report has no bundle hash (it cannot be overridden).
    """
    if report.bundle_hash is None:
        raise ValueError("this bundle could not be read whole, so it cannot be approved")
    when = approved_at or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"bundle_hash": report.bundle_hash, "approved_at": when,
            "rules": list(report.rules)}


__all__ = ["make_override", "override_allows"]
