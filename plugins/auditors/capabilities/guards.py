"""A guarded reset: a script that drops a database the environment names only after a guard —
a confirmation prompt, a refusal for production, a check that the host is local, a required
``--yes`` — resets a development database on purpose. Its ``capabilities.destruction`` of a
database warns, naming the guard; an unguarded one still blocks."""

from __future__ import annotations

import re

from lemon_plugins.auditors.capabilities.words import Raw

#: A destruction of a database (what :mod:`lemon_core.auditor_kit.capabilities.destruction`
#: says of ``DROP SCHEMA/DATABASE`` and ``dropdb``).
_DATABASE = re.compile(r"\bDROP\s+(?:SCHEMA|DATABASE)\b|\bdropdb\b|\bthe database\b", re.I)
#: Each guard, by the name the message gives it.
_GUARDS = (
    ("a confirmation prompt", re.compile(
        r"\bread\s+(?:-\w+\s+)*-p\b|\binput\s*\(|\bconfirm\w*\s*\(|\bprompt\s*\(|"
        r"\bclick\.confirm\b|\bRead-Host\b|\bquestion\s*\(", re.I)),
    ("a refusal for production", re.compile(
        r"(?:\bif\b|\[\[?|==|!=|\bcase\b|\bmatch\b|\btest\b)[^\n]{0,80}"
        r"\bprod(?:uction)?\b", re.I)),
    ("a check that the host is local", re.compile(
        r"(?:\bif\b|\[\[?|==|!=|\bcase\b|\bnot\s+in\b|\bin\s*\()[^\n]{0,80}"
        r"(?:localhost|127\.0\.0\.1|::1|docker[- ]compose)", re.I)),
    ("a required --yes", re.compile(r"[\"'\s=]--(?:yes|force|confirm)\b[\"']?\s*(?:\]|\)|:|;|\|)",
                                    re.I)),
)


def guard_of(source: str) -> str | None:
    """The name of the first guard ``source`` has, or None."""
    source = source[:500_000]
    for name, pattern in _GUARDS:
        if pattern.search(source):
            return name
    return None


def guarded(raw: Raw, sources: dict[str, str]) -> Raw:
    """``raw`` as a warning when it is a database destruction in a file with a guard."""
    if raw.rule != "capabilities.destruction" or raw.severity != "block" or \
            not _DATABASE.search(raw.message):
        return raw
    guard = guard_of(sources.get(raw.path, ""))
    if guard is None:
        return raw
    return raw._replace(severity="warn", message=(
        f"{raw.message}, behind {guard} (a guarded reset: make sure it stays guarded)"))


__all__ = ["guard_of", "guarded"]
