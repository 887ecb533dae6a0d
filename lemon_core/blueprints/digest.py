"""The blueprint's digest: one sha256 over every file the bundle ships and the resolved plan.

Canonical order: the tag ``lemon-blueprint-digest-v1``, then per file (sorted by the UTF-8
bytes of its POSIX path relative to the bundle) a line ``file <path> <size> <sha256>``, then
``plan`` and the plan as JSON (keys sorted, no spaces, ASCII only). Each part ends with a NUL,
so no two bundles share a byte stream. Printed as ``sha256:<hex>``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from lemon_core.blueprints.model import BundleFile

TAG = b"lemon-blueprint-digest-v1"


def digest(files: tuple[BundleFile, ...], plan: Mapping[str, Any]) -> str:
    """``sha256:`` over ``files`` (as listed by :func:`~lemon_core.blueprints.parse.list_files`)
    and ``plan`` (JSON-able), in the module's canonical order."""
    h = hashlib.sha256(TAG + b"\0")
    for f in sorted(files, key=lambda f: f.path.encode("utf-8", "surrogateescape")):
        h.update(f"file {f.path} {f.size} {f.sha256}".encode("utf-8", "surrogateescape"))
        h.update(b"\0")
    h.update(b"plan\0")
    h.update(json.dumps(plan, sort_keys=True, separators=(",", ":"),
                        ensure_ascii=True).encode("ascii"))
    h.update(b"\0")
    return "sha256:" + h.hexdigest()


__all__ = ["TAG", "digest"]
