"""Reading ``skills.lock.json``: install provenance and audit status per skill key.

Global ``<agent dir>/skills.lock.json`` and project ``<cwd>/.lemon/skills.lock.json``, shaped
``{"version": 1, "skills": {key: record}}``. A record carries ``source_kind``, ``source_id``,
``trust_level``, hashes, timestamps and ``audit_status`` (``pending|pass|warn|block``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.models import Diagnostic

LOCK_FILE = "skills.lock.json"
MAX_LOCK_BYTES = 16 * 1024 * 1024


def lockfile_path(ctx: LemonContext, *, local: bool) -> Path:
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / LOCK_FILE


def read_lock_records(path: Path) -> tuple[dict[str, dict[str, Any]], Diagnostic | None]:
    """The records by key; a missing file has none, a broken one none plus a diagnostic."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_LOCK_BYTES + 1)
    except FileNotFoundError:
        return {}, None
    except OSError as exc:
        return {}, Diagnostic(str(path), "error", "unreadable_lockfile", f"cannot read: {exc}")
    problem = None
    document: Any = None
    if len(data) > MAX_LOCK_BYTES:
        problem = f"larger than {MAX_LOCK_BYTES} bytes"
    else:
        try:
            document = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            problem = f"not valid JSON ({exc})"
    if problem is None and not isinstance(document, dict):
        problem = "not a JSON object"
    if problem is None and not isinstance(document.get("skills", {}), dict):
        problem = "'skills' is not an object"
    if problem is not None:
        return {}, Diagnostic(str(path), "error", "invalid_lockfile",
                              f"the lockfile is {problem}; its records are ignored until it is "
                              f"fixed or removed")
    records = {k: v for k, v in document.get("skills", {}).items() if isinstance(v, dict)}
    return records, None


__all__ = ["LOCK_FILE", "lockfile_path", "read_lock_records"]
