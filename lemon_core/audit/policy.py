"""The verdict policy: the worst severity decides, and the host's own rules.

``pass`` when nothing was found, ``warn`` when the worst finding is a warning (risky but
plausibly legitimate: installing needs a second, explicit approval), ``block`` when any finding
blocks (refused unless overridden for that exact bundle). Nothing inside a skill can lower a
verdict: the host decides from the findings alone.

The host's rules (``host.*``) are what the host itself sees while reading the bundle; they fail
closed, because a bundle the host could not read whole, or an auditor that could not finish,
vouches for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lemon_core.protocols import Finding

#: Bump when a host rule or the report's shape changes (it is part of the verdict cache key).
HOST_RULES_VERSION = "2"
HOST = "host"

PASS, WARN, BLOCK = "pass", "warn", "block"
_RANK = {PASS: 0, WARN: 1, BLOCK: 2}

#: rule id -> (severity, why): the host's rules, published in docs/audit-policy.md.
HOST_RULES: Mapping[str, tuple[str, str]] = {
    "host.unreadable": (BLOCK, "a file the host could not read cannot be audited"),
    "host.truncated": (BLOCK, "only part of a file over the size cap was read and audited"),
    "host.archive-unread": (BLOCK, ("part of an archive in the skill could not be unpacked and "
                                   "audited (an archive bomb, an encrypted member, the unpack "
                                   "caps); an agent that unpacks it gets files nobody saw")),
    "host.auditor-failed": (BLOCK, ("an auditor that crashed or returned nonsense could not "
                                   "vouch for the bundle; content that crashes an auditor "
                                   "must not lower the verdict")),
    "host.escaping-link": (BLOCK, ("a symbolic link leading out of the skill would put outside "
                                  "files in front of the agent")),
    "host.hard-link": (BLOCK, "a hard link shares its bytes with a file outside the skill"),
    "host.special-file": (BLOCK, ("a FIFO, device or socket is never a skill file and is not "
                                 "read")),
    "host.unsafe-name": (BLOCK, ("a file name with control characters or path steps is not "
                                "audited and cannot be installed safely")),
    "host.name-collision": (BLOCK, ("two names that are one file on case-insensitive or "
                                   "normalising file systems can swap content after the audit")),
    "host.too-many-entries": (BLOCK, ("the folder is over the entry cap, so the audit did not "
                                     "see all of it")),
    "host.file-too-large": (BLOCK, "a file over the size cap is not audited whole"),
    "host.tree-too-large": (BLOCK, "the folder is over the total size cap"),
    "host.too-deep": (BLOCK, ("folders nest deeper than the cap, so the audit did not see all "
                             "of it")),
    "host.unreadable-folder": (BLOCK, "a folder the host could not list cannot be audited"),
    "host.findings-capped": (WARN, ("an auditor reported more findings than a report keeps; "
                                   "blocks when any finding left out blocks")),
}

#: A tree problem code (lemon_core.fsio.tree.TreeProblem) -> the host rule reporting it.
TREE_RULES: Mapping[str, str] = {
    "escaping_link": "host.escaping-link",
    "hard_link": "host.hard-link",
    "special_file": "host.special-file",
    "unsafe_name": "host.unsafe-name",
    "name_collision": "host.name-collision",
    "too_many_entries": "host.too-many-entries",
    "file_too_large": "host.file-too-large",
    "tree_too_large": "host.tree-too-large",
    "too_deep": "host.too-deep",
    "unreadable": "host.unreadable-folder",
}

_BLOCKING_WORDS = frozenset({"block", "critical", "high", "error", "dangerous"})


def severity_of(value: object) -> str:
    """An auditor's severity as ``warn`` or ``block``; an unknown word that sounds serious
    blocks, anything else warns (a finding is never dropped for its spelling)."""
    word = str(value).strip().lower()
    return BLOCK if word in _BLOCKING_WORDS else WARN


def host_finding(rule: str, message: str, path: str | None = None) -> Finding:
    severity = HOST_RULES[rule][0]
    return Finding(rule=rule, severity=severity, message=message,  # type: ignore[arg-type]
                   path=path, auditor=HOST, family=HOST)


def verdict(findings: Iterable[Finding]) -> str:
    """The worst severity among ``findings``: ``pass``, ``warn`` or ``block``."""
    worst = PASS
    for finding in findings:
        if finding.severity == BLOCK:
            return BLOCK
        worst = WARN
    return worst


def rank(severity: str) -> int:
    return _RANK.get(severity, 2)


__all__ = ["BLOCK", "HOST", "HOST_RULES", "HOST_RULES_VERSION", "PASS", "TREE_RULES", "WARN",
           "host_finding", "rank", "severity_of", "verdict"]
