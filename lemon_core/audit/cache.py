"""The verdict cache: auditors' findings kept by bundle hash and rule versions.

An entry's key is a SHA-256 of the bundle hash, a fingerprint of what the hash leaves out but
auditors see (each entry's kind, mode and link count, and the tree problems), the host's rule
version, and the name and ``rules_version`` of every auditor that ran, in order. So a changed
byte, a changed rule, an added, removed or reordered auditor each miss the cache. A bundle is
cached only when every auditor declares a ``rules_version`` and its hash is known; a run in
which an auditor failed is never cached.

Entries live under ``<cache folder>/audit/``, sealed (:mod:`.sealed`), so a planted or edited
cache file is ignored: it can never lower a verdict. Host findings are never cached:
they are recomputed on every audit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from lemon_core.audit.bundle import ReadBundle
from lemon_core.audit.policy import HOST_RULES_VERSION, severity_of
from lemon_core.audit.sealed import SealedDocs
from lemon_core.protocols import Finding, VersionedAuditor

FORMAT = 1
_FIELDS = ("rule", "severity", "message", "path", "auditor", "family", "line", "excerpt")


def rules_version(auditor: object) -> str | None:
    """The auditor's ``rules_version`` when it is a non-empty string, else None."""
    if not isinstance(auditor, VersionedAuditor):
        return None
    value = auditor.rules_version
    return value if isinstance(value, str) and value else None


def cache_key(read: ReadBundle, versions: Sequence[tuple[str, str | None]]) -> str | None:
    """The entry name for this bundle and these auditors, or None when it is not cacheable."""
    bundle_hash = read.bundle.bundle_hash
    if bundle_hash is None or not versions or any(v is None for _, v in versions):
        return None
    material = json.dumps([FORMAT, HOST_RULES_VERSION, bundle_hash, read.fingerprint,
                           [list(v) for v in versions]], ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()


def _finding(row: Any) -> Finding:
    if not (isinstance(row, list) and len(row) == len(_FIELDS)):
        raise ValueError("row")
    rule, severity, message, path, auditor, family, line, excerpt = row
    if not all(isinstance(x, str) for x in (rule, severity, message, auditor, family)):
        raise ValueError("row")
    if not (path is None or isinstance(path, str)) or not (
            excerpt is None or isinstance(excerpt, str)) or not (
            line is None or type(line) is int):
        raise ValueError("row")
    return Finding(rule=rule, severity=severity_of(severity),  # type: ignore[arg-type]
                   message=message, path=path, auditor=auditor, family=family, line=line,
                   excerpt=excerpt)


class VerdictCache(SealedDocs):
    """The auditors' findings, sealed under ``<cache_dir>/audit``."""

    def load(self, key: str) -> list[Finding] | None:
        """The auditors' findings stored under ``key``, or None (missing, unsealed, foreign,
        another shape). Never raises."""
        doc = self.read_doc(f"{key}.json", self.secret())
        try:
            if doc.get("format") != FORMAT or doc.get("key") != key:
                return None
            return [_finding(row) for row in doc["findings"]]
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    def save(self, key: str, findings: Sequence[Finding]) -> None:
        """Store ``findings`` under ``key``; a cache that cannot be written costs speed only."""
        self.write_doc(f"{key}.json", {
            "format": FORMAT, "key": key,
            "findings": [[getattr(f, name) for name in _FIELDS] for f in findings]})


__all__ = ["VerdictCache", "cache_key", "rules_version"]
