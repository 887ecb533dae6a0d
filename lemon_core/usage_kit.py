"""The usage sidecar's file: its records, reading it safely, and changing it under its lock.

The contract-level half of :mod:`lemon_core.skills.usage` (which documents the file and adds the
per-context :class:`~lemon_core.skills.usage.UsageRecorder`): an observer plugin, lemon's own
``observers.usage`` or a third party's, counts loads with :func:`update_usage` alone.

Every change goes through :func:`lemon_core.fsio.update_file` (the sibling lock and the atomic
rename lemon's other JSON files use), so concurrent servers never lose an update and a killed
write leaves the old file or the new one. A sidecar that cannot be read (malformed, hostile, too
big) reads as empty with a ``problem``; :func:`update_usage` then refuses to touch it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import attrs

from lemon_core.errors import LemonError, UsageError

USAGE_FILE = "skills.usage.json"
USAGE_VERSION = 1
MAX_USAGE_BYTES = 8 * 1024 * 1024
LIFECYCLE_STATES = ("active", "stale", "archived", "pinned")
#: The scopes that have a sidecar (``builtin`` skills are not counted).
SCOPES = ("project", "global")


def stamp(when: datetime | None = None) -> str:
    """``when`` (default: now) as the sidecar's UTC time text."""
    when = when or datetime.now(timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(text: str | None) -> datetime | None:
    """A sidecar time back as an aware datetime (None when absent or unreadable)."""
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


@attrs.frozen
class Provenance:
    """Who created an agent-authored skill, when, and through which tool call."""

    by: str
    at: str
    tool_call_id: str | None = None


@attrs.frozen
class SkillUsage:
    """One key's record in the sidecar."""

    key: str
    loads: int = 0
    writes: int = 0
    last_loaded_at: str | None = None
    last_written_at: str | None = None
    created: Provenance | None = None
    lifecycle_state: str = "active"
    state_changed_at: str | None = None

    @property
    def agent_authored(self) -> bool:
        return self.created is not None

    @property
    def last_used_at(self) -> str | None:
        """The later of the last load and the last write (the curator's clock)."""
        times = [t for t in (self.last_loaded_at, self.last_written_at) if t]
        return max(times) if times else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"loads": self.loads, "writes": self.writes,
                               "last_loaded_at": self.last_loaded_at,
                               "last_written_at": self.last_written_at,
                               "lifecycle_state": self.lifecycle_state}
        if self.state_changed_at:
            out["state_changed_at"] = self.state_changed_at
        if self.created is not None:
            out["created"] = attrs.asdict(self.created)
        return out


@attrs.frozen
class UsageFile:
    """A sidecar as read: its records by key, and why it read as empty (``problem``)."""

    path: Path
    skills: Mapping[str, SkillUsage] = attrs.field(factory=dict)
    problem: str | None = None

    def get(self, key: str) -> SkillUsage:
        return self.skills.get(key) or SkillUsage(key)


# -- reading ------------------------------------------------------------------------------------

class _Bad(Exception):
    """Why a sidecar cannot be read (becomes its ``problem``)."""


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Bad(f"{name} is not a count")
    return value


def _text(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > 200:
        raise _Bad(f"{name} is not a short text")
    return value


def _entry(key: str, raw: Any) -> SkillUsage:
    from lemon_core.text import identifier_reason

    if identifier_reason(key) is not None or len(key) > 200:
        raise _Bad("a key is not a skill key")
    if not isinstance(raw, dict):
        raise _Bad(f"the record of {key!r} is not an object")
    state = raw.get("lifecycle_state", "active")
    if state not in LIFECYCLE_STATES:
        raise _Bad(f"the lifecycle_state of {key!r} is not one of "
                         f"{', '.join(LIFECYCLE_STATES)}")
    created = raw.get("created")
    provenance = None
    if created is not None:
        if not isinstance(created, dict):
            raise _Bad(f"the provenance of {key!r} is not an object")
        provenance = Provenance(_text(created.get("by"), "created.by") or "unknown",
                                _text(created.get("at"), "created.at") or "",
                                _text(created.get("tool_call_id"), "created.tool_call_id"))
    return SkillUsage(key, _count(raw.get("loads", 0), "loads"),
                      _count(raw.get("writes", 0), "writes"),
                      _text(raw.get("last_loaded_at"), "last_loaded_at"),
                      _text(raw.get("last_written_at"), "last_written_at"),
                      provenance, state, _text(raw.get("state_changed_at"), "state_changed_at"))


def parse_usage(path: Path, data: bytes | None) -> UsageFile:
    """The sidecar ``data`` read from ``path``: never raises; a problem reads as empty."""
    from lemon_core.fsio import FileProblem
    from lemon_core.jsondata import loads

    if not data:
        return UsageFile(path)
    try:
        document = loads(data)
        if not isinstance(document, dict):
            raise _Bad("it is not a JSON object")
        if document.get("version", USAGE_VERSION) != USAGE_VERSION:
            raise _Bad(f"version {document.get('version')!r} is not one this lemon "
                             f"reads ({USAGE_VERSION})")
        skills = document.get("skills", {})
        if not isinstance(skills, dict):
            raise _Bad("'skills' is not an object")
        return UsageFile(path, {key: _entry(key, raw) for key, raw in skills.items()})
    except (_Bad, LemonError, FileProblem) as exc:
        message = getattr(exc, "message", None) or str(exc)
        return UsageFile(path, problem=f"{path}: {message}; it reads as empty until you fix "
                                       f"or remove it")


def read_usage_file(path: Path) -> UsageFile:
    """The sidecar at ``path`` (through the safe reader; never raises)."""
    from lemon_core.fsio import FileProblem, read_bytes

    try:
        return parse_usage(path, read_bytes(path, MAX_USAGE_BYTES))
    except FileProblem as problem:
        return UsageFile(path, problem=f"{path}: {problem.message}; it reads as empty")
    except OSError as exc:
        return UsageFile(path, problem=f"{path}: {exc.strerror or exc}; it reads as empty")


# -- writing ------------------------------------------------------------------------------------

#: A change of one key's record: the new record, or None to drop it.
Change = Callable[[SkillUsage], 'SkillUsage | None']


def update_usage(path: Path, changes: Mapping[str, Change], *,
                 root: Path | None = None, timeout: float = 10.0) -> UsageFile:
    """Apply ``changes`` (key -> record -> new record) to the sidecar at ``path`` under its lock.

    ``root``: the project directory (for a project sidecar: no link followed on the way).
    :raises UsageError: when the sidecar cannot be read (it is left as it is);
        :class:`~lemon_core.errors.BusyError` when its lock stays held.
    """
    from lemon_core.fsio import Snapshot, dump_json, update_file

    result: list[UsageFile] = []

    def transform(current: Snapshot) -> bytes:
        read = parse_usage(path, current.content)
        if read.problem:
            raise UsageError(f"usage not recorded: {read.problem}")
        skills = dict(read.skills)
        for key, change in changes.items():
            changed = change(skills.get(key) or SkillUsage(key))
            if changed is None:
                skills.pop(key, None)
            else:
                skills[key] = changed
        result.append(UsageFile(path, skills))
        return dump_json({"version": USAGE_VERSION,
                          "skills": {k: skills[k].to_json() for k in sorted(skills)}})

    update_file(path, transform, root=root, timeout=timeout)
    return result[0]


__all__ = ["LIFECYCLE_STATES", "MAX_USAGE_BYTES", "SCOPES", "USAGE_FILE", "USAGE_VERSION",
           "Change", "Provenance", "SkillUsage", "UsageFile", "parse_stamp", "parse_usage",
           "read_usage_file", "stamp", "update_usage"]
