"""JSON documents sealed under the user's private key in ``<cache folder>/audit/``.

The audit keeps two kinds of record there: the auditors' findings by bundle hash
(:mod:`.cache`) and the first-load verdict by skill folder (:mod:`.loaded`). Both are sealed
like the catalog cache (:mod:`lemon_core.catalog.cache_folder`: an HMAC under the user's
private key), so a planted or edited file reads as missing: it can never lower a verdict nor
invent one. Reading and writing never raise: a cache that cannot be used costs speed only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemon_core.catalog.cache_folder import (
    ensure_key,
    private_dir,
    read_key,
    seal,
    unseal,
)
from lemon_core.fsio import FileProblem, atomic_write_bytes, read_bytes

if TYPE_CHECKING:
    from typing_extensions import Self

    from lemon_core.context import LemonContext

MAGIC = b"lemon-audit-cache"
SUBDIR = "audit"
MAX_ENTRY_BYTES = 8 * 1024 * 1024


class SealedDocs:
    """The sealed documents of one cache folder."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self.folder = cache_dir / SUBDIR

    @classmethod
    def for_context(cls, ctx: LemonContext) -> Self | None:
        """The documents of ``ctx`` (None where the catalog cache is not used either)."""
        from lemon_core.catalog.cache import CacheStore

        store = CacheStore.for_context(ctx)
        return None if store is None else cls(store.cache_dir)

    def secret(self) -> bytes | None:
        """The sealing key, when the folders are private and it exists (read it once for
        several :meth:`read_doc` calls)."""
        if not (private_dir(self.cache_dir) and private_dir(self.folder)):
            return None
        return read_key(self.cache_dir)

    def read_doc(self, name: str, secret: bytes | None) -> Any:
        """The JSON document sealed in ``name`` (None: missing, unsealed, foreign, unreadable)."""
        if secret is None:
            return None
        try:
            data = read_bytes(self.folder / name, MAX_ENTRY_BYTES, nofollow=True)
        except FileProblem:
            return None
        payload = None if data is None else unseal(secret, MAGIC, data)
        if payload is None:
            return None
        try:
            return json.loads(payload)
        except (ValueError, RecursionError):
            return None

    def write_doc(self, name: str, doc: Any) -> None:
        """Seal ``doc`` into ``name``."""
        if not (private_dir(self.cache_dir, create=True)
                and private_dir(self.folder, create=True)):
            return
        secret = ensure_key(self.cache_dir)
        if secret is None:
            return
        try:
            payload = json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogatepass")
            atomic_write_bytes(self.folder / name, seal(secret, MAGIC, payload))
        except (OSError, TypeError, ValueError):
            pass


__all__ = ["MAGIC", "MAX_ENTRY_BYTES", "SUBDIR", "SealedDocs"]
