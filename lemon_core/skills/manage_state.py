"""The narrow part of the usage sidecar ``skill_manage`` needs: a skill's ``lifecycle_state``
(``pinned`` refuses delete and archive) and the rows ``report`` returns.

The sidecar (``<agent dir>/skills.usage.json``, ``<project>/.lemon/skills.usage.json``) is
engineer M's :mod:`lemon_core.skills.usage`; until it lands this module reads and writes only
``{"skills": {key: {"lifecycle_state": ...}}}`` under the sidecar's lock, keeping every
other field of the file as it was (M's format: ``version``, per key ``loads``, ``writes``,
``last_loaded_at``, ``last_written_at``, ``created``, ``lifecycle_state``). Stale and archive
candidates are flagged from the last load, write or creation time.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from lemon_core.errors import ConfigError
from lemon_core.install.targets import Scope

USAGE_FILE = "skills.usage.json"
STALE_AFTER_DAYS = 30
ARCHIVE_AFTER_DAYS = 90


def usage_path(scope: Scope) -> Path:
    """The sidecar of ``scope``: beside its skills folder's parent (the agent dir or the
    project's ``.lemon``), outside every skill folder."""
    return scope.skills_dir.parent / USAGE_FILE


def _document(data: bytes | None, path: Path) -> dict[str, Any]:
    if not data:
        return {}
    try:
        document = json.loads(data)
    except ValueError:
        raise ConfigError(f"{path} is not valid JSON; fix or remove it") from None
    return document if isinstance(document, dict) else {}


def _skills(document: Mapping[str, Any]) -> dict[str, Any]:
    skills = document.get("skills")
    return skills if isinstance(skills, dict) else {}


def read_usage(scope: Scope) -> dict[str, dict[str, Any]]:
    """Every key's row in the sidecar (empty when it is missing or broken)."""
    from lemon_core.fsio.read import FileProblem, read_bytes

    path = usage_path(scope)
    try:
        document = _document(read_bytes(path), path)
    except (FileProblem, ConfigError):
        return {}
    return {k: v for k, v in _skills(document).items() if isinstance(v, dict)}


def lifecycle(scope: Scope, key: str) -> str:
    """``key``'s lifecycle state (``active`` when the sidecar says nothing)."""
    state = read_usage(scope).get(key, {}).get("lifecycle_state")
    return state if isinstance(state, str) else "active"


def set_lifecycle(scope: Scope, key: str, state: str | None) -> Path:
    """Set ``key``'s lifecycle state (None drops it back to ``active``); other fields kept."""
    from lemon_core.fsio.write import dump_json, update_file

    path = usage_path(scope)

    def transform(current: Any) -> bytes:
        document = _document(current.content, path)
        skills = _skills(document)
        row = dict(skills.get(key) or {})
        row["lifecycle_state"] = state or "active"
        skills[key] = row
        document["skills"] = skills
        document.setdefault("version", 1)
        return dump_json(document)

    update_file(path, transform, root=scope.root)
    return path


def _seconds(value: object) -> float | None:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def report_rows(scope: Scope, keys: list[str], now: float | None = None
                ) -> list[dict[str, Any]]:
    """One row per key: the sidecar's fields, its lifecycle state, and whether it is a stale
    or an archive candidate (unused for 30 or 90 days; a pinned skill never is)."""
    now = time.time() if now is None else now
    usage = read_usage(scope)
    rows = []
    for key in sorted(set(keys) | set(usage)):
        row = dict(usage.get(key, {}))
        state = row.get("lifecycle_state") if isinstance(row.get("lifecycle_state"), str) \
            else "active"
        made = row.get("created")
        created: dict[str, Any] = made if isinstance(made, dict) else {}
        times = [t for t in (_seconds(row.get("last_loaded_at")),
                             _seconds(row.get("last_written_at")),
                             _seconds(created.get("at"))) if t is not None]
        idle = (now - max(times)) / 86400 if times else None
        pinned = state == "pinned"
        row.update(key=key, lifecycle_state=state,
                   stale_candidate=bool(idle is not None and idle >= STALE_AFTER_DAYS
                                        and not pinned and state == "active"),
                   archive_candidate=bool(idle is not None and idle >= ARCHIVE_AFTER_DAYS
                                          and not pinned and state != "archived"))
        rows.append(row)
    return rows


__all__ = ["USAGE_FILE", "lifecycle", "read_usage", "report_rows", "set_lifecycle",
           "usage_path"]
