"""``skills.lock.json``: install provenance and audit status per skill key.

Global ``<agent dir>/skills.lock.json`` and project ``<cwd>/.lemon/skills.lock.json`` (meant to
be committed), shaped ``{"version": 1, "skills": {key: record}}``; a record is a
:class:`~lemon_core.state.records.LockRecord`.

Reading never raises: a broken file is a diagnostic and no records. Writing
(:func:`write_records`) goes through :func:`lemon_core.fsio.update_file`: under the sibling
``skills.lock.json.lock`` directory, re-reading the file inside the lock and changing only the
keys given, so installs running in several processes at once each keep their record, and every
other record (even one this lemon cannot read) and every unknown field stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError, LemonError
from lemon_core.fsio import FileProblem, Snapshot, dump_json, read_bytes, update_file
from lemon_core.jsondata import loads
from lemon_core.models import Diagnostic
from lemon_core.state.records import LockRecord, RecordError, structure_record

LOCK_FILE = "skills.lock.json"
LOCK_VERSION = 1
MAX_LOCK_BYTES = 16 * 1024 * 1024


def lockfile_path(ctx: LemonContext, *, local: bool) -> Path:
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / LOCK_FILE


def _document(data: bytes) -> dict[str, Any]:
    document = loads(data)
    if not isinstance(document, dict):
        raise FileProblem("schema", "not a JSON object")
    skills = document.get("skills", {})
    if not isinstance(skills, dict):
        raise FileProblem("schema", "'skills' is not an object")
    version = document.get("version", LOCK_VERSION)
    if version != LOCK_VERSION:
        raise FileProblem("schema", f"version {version!r} is not one this lemon reads "
                                    f"({LOCK_VERSION}); upgrade lemon")
    return document


def _records(data: bytes) -> tuple[dict[str, LockRecord], str | None]:
    """The records that are of the right shape, and the reason the first other one is not."""
    records: dict[str, LockRecord] = {}
    first_problem = None
    for key, raw in _document(data).get("skills", {}).items():
        try:
            records[key] = structure_record(key, raw)
        except RecordError as problem:
            first_problem = first_problem or str(problem)
    return records, first_problem


def _read(path: Path) -> tuple[dict[str, LockRecord], FileProblem | str | None]:
    """The readable records of the lockfile at ``path`` (none when it is missing) and what
    kept it from being read whole: the file's problem, or the first bad record's reason."""
    try:
        data = read_bytes(path, MAX_LOCK_BYTES)
        return _records(data) if data is not None else ({}, None)
    except FileProblem as problem:
        return {}, problem


def read_lock_records(path: Path) -> tuple[dict[str, LockRecord], Diagnostic | None]:
    """The records by key; a missing file has none, a broken one none plus a diagnostic.

    Read through the safe reader (at most :data:`MAX_LOCK_BYTES`, regular files only) and
    parsed by :mod:`lemon_core.jsondata`: ``unreadable_lockfile`` when it cannot be read (a
    FIFO, a device, a folder, too large, a folder on its path that is a file),
    ``invalid_lockfile`` when it is not JSON of the right shape. A single malformed record is
    left out with an ``invalid_lockfile`` diagnostic naming it; the others are kept. The
    message never repeats the path: the diagnostic carries it.
    """
    records, problem = _read(path)
    if problem is None:
        return records, None
    if isinstance(problem, FileProblem):
        code = "unreadable_lockfile" if problem.kind == "read" else "invalid_lockfile"
        return {}, Diagnostic(str(path), "error", code,
                              f"{problem.message}; its records are ignored until it is fixed "
                              "or removed")
    return records, Diagnostic(str(path), "error", "invalid_lockfile",
                               f"{problem}; that record is ignored until it is fixed or "
                               "removed")


def whole_lock_records(path: Path) -> dict[str, LockRecord]:
    """Every record of the lockfile at ``path`` (none when it is missing), for a command that
    speaks for all of them (``sync``, ``sync --frozen``, ``outdated``, ``update``): a file
    that cannot be read, or a record this lemon cannot read, fails the command rather than
    pass as fewer records.

    :raises ConfigError: naming the file, the reason and what to do.
    """
    records, problem = _read(path)
    if problem is not None:
        reason = problem.message if isinstance(problem, FileProblem) else problem
        raise ConfigError(f"cannot read the lockfile {path}: {reason}; fix it (after a merge "
                          f"conflict, keep the records of both sides) or remove it, then run "
                          f"the command again")
    return records


def _editable(snapshot: Snapshot) -> dict[str, Any]:
    if snapshot.content is None:
        return {"version": LOCK_VERSION, "skills": {}}
    try:
        return _document(snapshot.content)
    except FileProblem as problem:
        raise ConfigError(
            f"cannot record the install in {snapshot.path}: {problem.message}; fix the file "
            f"or move it away, then run the command again"
        ) from None


class LockRecords(Mapping[str, LockRecord]):
    """The records of one lockfile, each turned into a :class:`LockRecord` when first asked
    for: an install asks for the few keys it writes, and structuring every record of a large
    lockfile (500 records: ~14 ms) twice per install bought nothing. A record that is not of
    the lockfile's shape is absent, as :func:`read_lock_records` leaves it out."""

    def __init__(self, raw: Mapping[str, Any]) -> None:
        self._raw = raw
        self._done: dict[str, LockRecord | None] = {}

    def _record(self, key: str) -> LockRecord | None:
        if key not in self._done:
            try:
                self._done[key] = structure_record(key, self._raw[key])
            except RecordError:
                self._done[key] = None
        return self._done[key]

    def __getitem__(self, key: str) -> LockRecord:
        record = self._record(key) if key in self._raw else None
        if record is None:
            raise KeyError(key)
        return record

    def __iter__(self) -> Iterator[str]:
        return (key for key in self._raw if self._record(key) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def editable_records(path: Path) -> LockRecords:
    """The readable records of a lockfile that :func:`write_records` can edit (read once,
    each structured on first use).

    :raises ConfigError: when the file cannot be read or is not a lockfile (an install
        refuses before it changes anything, rather than fail at the end).
    """
    try:
        snapshot = Snapshot.read(path, MAX_LOCK_BYTES)
    except LemonError as exc:
        raise ConfigError(f"{exc}; fix or move the lockfile, then run the command again"
                          ) from None
    return LockRecords(_editable(snapshot).get("skills", {}))


def write_records(path: Path, changes: Mapping[str, LockRecord | dict[str, Any] | None], *,
                  timeout: float = 10.0, root: Path | None = None) -> dict[str, Any]:
    """Set (a record or raw JSON data) or delete (None) the records of ``changes`` in the
    lockfile at ``path``, atomically under its lock; every other key is left exactly as it is.

    ``root``: the project root of a project lockfile, reached beneath it without following a
    link (see :func:`lemon_core.fsio.update_file`).

    Returns what each changed key held before (its raw JSON data, or None when absent), which
    is what :func:`write_records` needs to undo the change.

    :raises ConfigError: when the file is not a lockfile this lemon can edit.
    :raises lemon_core.errors.BusyError: when another writer holds the lock too long.
    """
    before: dict[str, Any] = {}

    def transform(snapshot: Snapshot) -> bytes:
        document = _editable(snapshot)
        skills = document.setdefault("skills", {})
        document.setdefault("version", LOCK_VERSION)
        before.clear()
        for key, value in changes.items():
            before[key] = skills.get(key)
            if value is None:
                skills.pop(key, None)
            else:
                skills[key] = value.to_json() if isinstance(value, LockRecord) else value
        document["skills"] = dict(sorted(skills.items()))
        return dump_json(document)

    if not changes:
        return {}
    update_file(path, transform, timeout=timeout, root=root)
    return dict(before)


__all__ = ["LOCK_FILE", "LOCK_VERSION", "LockRecords", "editable_records", "lockfile_path",
           "read_lock_records", "whole_lock_records", "write_records"]
