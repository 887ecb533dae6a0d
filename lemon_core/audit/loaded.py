"""What the first-load audit found, by skill folder: the record ``lemon skill list`` reads.

``lemon skill serve`` audits a project's skill that lemon did not install when an agent first
loads it (:mod:`lemon_core.skills.load_audit`). The auditors' findings are cached by bundle
hash (:mod:`.cache`); this module keeps, beside them, one small sealed record per folder: the
verdict, the rules that fired, the bundle hash, and a :func:`signature` of the folder's stat
data (path, type, size, inode, modification and change times of every entry). ``lemon skill
list`` shows the verdict only while the folder's signature is the same, so it never reads
a bundle nor runs an auditor; a changed folder is shown as changed until its next load.

Records are sealed with the user's private key like every cache entry (a planted record is
ignored: it can neither hide a block nor invent one).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from lemon_core.audit.sealed import SealedDocs

if TYPE_CHECKING:
    from lemon_core.fsio.tree import TreeScan

FORMAT = 1
PREFIX = "loaded-"


@attrs.frozen
class LoadedVerdict:
    """One folder's first-load audit: ``verdict`` (``pass``/``warn``/``block``), ``rules``
    that fired, ``bundle_hash`` and the folder's stat ``signature`` when it was audited."""

    folder: str
    verdict: str
    rules: tuple[str, ...]
    bundle_hash: str | None
    signature: str


def signature(scan: TreeScan) -> str:
    """A digest of the stat data of the folder and every entry of ``scan`` (no content is
    read): a write to any file changes its change time, so it changes the signature."""
    rows = []
    for relative in ("", *(entry.path for entry in scan.entries)):
        try:
            info = os.lstat(os.path.join(scan.root, relative) if relative else scan.root)
        except OSError:
            rows.append([relative, None])
            continue
        rows.append([relative, info.st_mode, info.st_size, info.st_ino, info.st_mtime_ns,
                     info.st_ctime_ns])
    text = json.dumps([[str(p) for p in scan.problems], rows], default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _name(real: str) -> str:
    digest = hashlib.sha256(real.encode("utf-8", "surrogatepass"))
    return f"{PREFIX}{digest.hexdigest()}.json"


class LoadedVerdicts(SealedDocs):
    """The sealed first-load records under ``<cache_dir>/audit``."""

    def recall(self, folder: str) -> LoadedVerdict | None:
        """The record of ``folder`` (None when there is none or it is not ours). Never
        raises."""
        return self.recall_many([folder])[0]

    def recall_many(self, folders: Sequence[str]) -> list[LoadedVerdict | None]:
        """:meth:`recall` of each of ``folders`` (the key read once)."""
        secret = self.secret()
        if secret is None:
            return [None] * len(folders)
        return [self._recall(secret, os.path.realpath(folder)) for folder in folders]

    def _recall(self, secret: bytes, real: str) -> LoadedVerdict | None:
        doc = self.read_doc(_name(real), secret)
        try:
            if doc.get("format") != FORMAT or doc.get("folder") != real:
                return None
            rules = doc["rules"]
            if not (isinstance(doc["verdict"], str) and isinstance(doc["signature"], str)
                    and isinstance(rules, list) and all(isinstance(r, str) for r in rules)):
                return None
            bundle_hash = doc.get("bundle_hash")
            return LoadedVerdict(doc["folder"], doc["verdict"], tuple(rules),
                                 bundle_hash if isinstance(bundle_hash, str) else None,
                                 doc["signature"])
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

    def remember(self, folder: str, verdict: str, rules: Sequence[str],
                 bundle_hash: str | None, folder_signature: str) -> None:
        """Record ``folder``'s verdict; a cache that cannot be written costs the listing its
        column only."""
        real = os.path.realpath(folder)
        self.write_doc(_name(real), {
            "format": FORMAT, "folder": real, "verdict": verdict, "rules": list(rules),
            "bundle_hash": bundle_hash, "signature": folder_signature})


__all__ = ["LoadedVerdict", "LoadedVerdicts", "signature"]
