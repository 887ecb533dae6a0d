"""Reading ``skills.lock.json``: install provenance and audit status per skill key.

Global ``<agent dir>/skills.lock.json`` and project ``<cwd>/.lemon/skills.lock.json``, shaped
``{"version": 1, "skills": {key: record}}``. A record carries ``source_kind``, ``source_id``,
``trust_level``, hashes, timestamps and ``audit_status`` (``pending|pass|warn|block``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.fsio import FileProblem, read_bytes
from lemon_core.jsondata import loads
from lemon_core.models import Diagnostic

LOCK_FILE = "skills.lock.json"
MAX_LOCK_BYTES = 16 * 1024 * 1024


def lockfile_path(ctx: LemonContext, *, local: bool) -> Path:
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / LOCK_FILE


def _records(data: bytes) -> dict[str, dict[str, Any]]:
    document = loads(data)
    if not isinstance(document, dict):
        raise FileProblem("schema", "not a JSON object")
    skills = document.get("skills", {})
    if not isinstance(skills, dict):
        raise FileProblem("schema", "'skills' is not an object")
    return {k: v for k, v in skills.items() if isinstance(v, dict)}


def read_lock_records(path: Path) -> tuple[dict[str, dict[str, Any]], Diagnostic | None]:
    """The records by key; a missing file has none, a broken one none plus a diagnostic.

    Read through the safe reader (at most :data:`MAX_LOCK_BYTES`, regular files only) and
    parsed by :mod:`lemon_core.jsondata`: ``unreadable_lockfile`` when it cannot be read (a
    FIFO, a device, a folder, too large, a folder on its path that is a file),
    ``invalid_lockfile`` when it is not JSON of the right shape. The message never repeats
    the path: the diagnostic carries it.
    """
    try:
        data = read_bytes(path, MAX_LOCK_BYTES)
        return ({}, None) if data is None else (_records(data), None)
    except FileProblem as problem:
        code = "unreadable_lockfile" if problem.kind == "read" else "invalid_lockfile"
        return {}, Diagnostic(str(path), "error", code,
                              f"{problem.message}; its records are ignored until it is fixed "
                              "or removed")


__all__ = ["LOCK_FILE", "lockfile_path", "read_lock_records"]
