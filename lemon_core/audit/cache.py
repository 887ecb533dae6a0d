"""The verdict cache: auditors' findings kept by bundle hash and rule versions.

An entry's key is a SHA-256 of the bundle hash, a fingerprint of what the hash leaves out but
auditors see (each entry's kind, mode and link count, and the tree problems), the host's rule
version, and the name and ``rules_version`` of every auditor that ran, in order. So a changed
byte, a changed rule, an added, removed or reordered auditor each miss the cache. A bundle is
cached only when every auditor declares a ``rules_version`` and its hash is known; a run in
which an auditor failed is never cached.

Entries live under ``<cache folder>/audit/`` and are sealed like the catalog cache
(:mod:`lemon_core.catalog.cache_folder`: an HMAC under the user's private key), so a planted or
edited cache file is ignored: it can never lower a verdict. Host findings are never cached:
they are recomputed on every audit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core.audit.bundle import ReadBundle
from lemon_core.audit.policy import HOST_RULES_VERSION, severity_of
from lemon_core.catalog.cache_folder import (
    ensure_key,
    private_dir,
    read_key,
    seal,
    unseal,
)
from lemon_core.fsio import FileProblem, atomic_write_bytes, read_bytes
from lemon_core.protocols import Finding

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

MAGIC = b"lemon-audit-cache"
FORMAT = 1
SUBDIR = "audit"
MAX_ENTRY_BYTES = 8 * 1024 * 1024
_FIELDS = ("rule", "severity", "message", "path", "auditor", "family", "line", "excerpt")


def rules_version(auditor: object) -> str | None:
    """The auditor's ``rules_version`` when it is a non-empty string, else None."""
    value = getattr(auditor, "rules_version", None)
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


class VerdictCache:
    """Sealed entries under ``<cache_dir>/audit``."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.folder = cache_dir / SUBDIR

    @classmethod
    def for_context(cls, ctx: LemonContext) -> VerdictCache | None:
        """The cache of ``ctx`` (None where the catalog cache is not used either)."""
        from lemon_core.catalog.cache import CacheStore

        store = CacheStore.for_context(ctx)
        return None if store is None else cls(store.cache_dir)

    def load(self, key: str) -> list[Finding] | None:
        """The auditors' findings stored under ``key``, or None (missing, unsealed, foreign,
        another shape). Never raises."""
        if not (private_dir(self.cache_dir) and private_dir(self.folder)):
            return None
        secret = read_key(self.cache_dir)
        if secret is None:
            return None
        try:
            data = read_bytes(self.folder / f"{key}.json", MAX_ENTRY_BYTES, nofollow=True)
        except FileProblem:
            return None
        payload = None if data is None else unseal(secret, MAGIC, data)
        if payload is None:
            return None
        try:
            doc = json.loads(payload)
            if doc.get("format") != FORMAT or doc.get("key") != key:
                return None
            return [_finding(row) for row in doc["findings"]]
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
            return None

    def save(self, key: str, findings: Sequence[Finding]) -> None:
        """Store ``findings`` under ``key``; a cache that cannot be written costs speed only."""
        if not (private_dir(self.cache_dir, create=True)
                and private_dir(self.folder, create=True)):
            return
        secret = ensure_key(self.cache_dir)
        if secret is None:
            return
        doc = {"format": FORMAT, "key": key,
               "findings": [[getattr(f, name) for name in _FIELDS] for f in findings]}
        try:
            payload = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
            atomic_write_bytes(self.folder / f"{key}.json", seal(secret, MAGIC, payload))
        except (OSError, TypeError, ValueError):
            pass


__all__ = ["MAGIC", "VerdictCache", "cache_key", "rules_version"]
