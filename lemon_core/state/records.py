"""The records of ``skills.lock.json``, and the one cattrs converter that reads and writes them.

A :class:`LockRecord` is one installed skill's provenance and audit state. Fields lemon does not
know (written by a newer lemon or by hand) are kept in :attr:`LockRecord.extra` and written
back unchanged, so a rewrite never drops them. :func:`structure_record` turns cattrs' errors
into one plain reason naming the field; the caller puts the file's path on it.

cattrs is imported on first use (``lemon skill list`` of a home without a lockfile never pays
for it).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import attrs

#: ``audit_status`` values: ``pending`` (not audited yet), ``pass``, ``warn``, ``block``.
AUDIT_STATUSES = ("pending", "pass", "warn", "block")


def _dict(value: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(value or {})


def _tuple(value: Any) -> tuple[Any, ...]:
    """``tuple(value)``: attrs reads a converter's signature, and a builtin's costs a tokenizer
    start-up (about 10 ms of every command's start) where a function's costs nothing."""
    return tuple(value)


@attrs.frozen
class AuditOverride:
    """The user's approval to install a ``block`` verdict: bound to one exact bundle hash."""

    bundle_hash: str
    approved_at: str
    rules: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


#: How a skill is placed in an agent root: a relative symbolic link to lemon's copy, or a copy.
TARGET_MODES = ("link", "copy")


@attrs.frozen
class AgentTarget:
    """One agent root the skill was placed in (``--agent``): the agent's name (a root id of
    :mod:`lemon_core.catalog.agent_roots`) and ``mode`` (``link`` or ``copy``). The path is not
    recorded: it follows from the name, the lockfile's scope and the key, so a committed
    project lockfile and a lockfile carried to a fresh home stay right."""

    agent: str
    mode: str = "link"


@attrs.frozen
class LockRecord:
    """One installed skill: where it came from, what exactly was installed, how it audited.

    ``source_kind`` is the source's name (``local``, ``git``, ``gh``, …), ``source_id`` its
    canonical id and ``identifier`` what the user typed; ``requested_ref`` the ref asked for
    and ``resolved_commit`` the exact revision fetched; ``subdirectory`` where in the fetched
    tree the skill was. ``content_hash`` is ``sha256:<hex>`` of SKILL.md and ``bundle_hash``
    the :func:`lemon_core.fsio.tree.bundle_hash` of the installed folder.
    """

    key: str
    source_kind: str = "unknown"
    source_id: str | None = None
    identifier: str | None = None
    requested_ref: str | None = None
    resolved_commit: str | None = None
    subdirectory: str | None = None
    trust_level: str | None = None
    content_hash: str | None = None
    bundle_hash: str | None = None
    upstream_hash: str | None = None
    installed_at: str | None = None
    updated_at: str | None = None
    audit_status: str = "pending"
    audit_findings: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    audit_override: AuditOverride | None = None
    #: Each installed path's ``<kind>:<sha256 hex>`` (``F`` file, ``X`` executable, ``L``
    #: link): lets ``update`` and ``--force`` name the files edited since the install. None
    #: in records written before lemon kept it.
    file_hashes: Mapping[str, str] | None = None
    #: The git tree id of the skill's folder at ``resolved_commit`` (git sources): ``outdated``
    #: compares it with that folder's tree upstream, so a commit elsewhere in the repository
    #: outdates nothing. None in records of other sources and of an older lemon (those
    #: compare the bundle hash).
    tree_id: str | None = None
    #: The agent roots the skill was placed in (``--agent``); empty in older records.
    targets: tuple[AgentTarget, ...] = attrs.field(default=(), converter=_tuple)
    #: Fields this lemon does not know, kept as read.
    extra: Mapping[str, Any] = attrs.field(factory=dict, converter=_dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data, unknown fields included (what the lockfile holds)."""
        return unstructure_record(self)


_KNOWN = frozenset(f.name for f in attrs.fields(LockRecord)) - {"extra"}


class RecordError(ValueError):
    """A record that is not of the lockfile's shape; the message names the field."""


@functools.lru_cache(maxsize=1)
def converter() -> Any:
    """The one converter for lockfile records (built on first use)."""
    import cattrs

    conv = cattrs.Converter(forbid_extra_keys=False)

    def _str(value: Any, _: Any) -> str:
        if not isinstance(value, str):
            raise TypeError(f"expected a string, got {type(value).__name__}")
        return value

    def _strings(value: Any, _: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise TypeError("expected a list of strings")
        return tuple(value)

    conv.register_structure_hook(str, _str)
    conv.register_structure_hook_func(lambda t: t == tuple[str, ...], _strings)
    conv.register_unstructure_hook(tuple, list)
    return conv


def _reason(exc: BaseException) -> str:
    """One line from a cattrs error: the first leaf failure and the field it is about."""
    try:
        from cattrs.errors import ClassValidationError
        from cattrs.v import transform_error
    except ImportError:  # pragma: no cover - older cattrs
        return str(exc)
    if isinstance(exc, ClassValidationError):
        messages = transform_error(exc, path="record")
        return messages[0].replace(" @ record.", " in field ") if messages else str(exc)
    return str(exc)


def structure_record(key: str, data: Any) -> LockRecord:
    """The record ``data`` (the JSON value under ``skills[key]``) as a :class:`LockRecord`.

    :raises RecordError: saying which field is wrong and why.
    """
    if not isinstance(data, dict):
        raise RecordError(f"the record of {key!r} is not a JSON object")
    known = {k: v for k, v in data.items() if k in _KNOWN}
    known["key"] = key  # the lookup key is the record's key
    extra = {k: v for k, v in data.items() if k not in _KNOWN}
    for target in known.get("targets") or ():
        if not isinstance(target, dict) or target.get("mode", "link") not in TARGET_MODES:
            raise RecordError(f"the record of {key!r} has a target that is not an object "
                              f"with an agent and a mode ({' or '.join(TARGET_MODES)})")
    if known.get("audit_status") not in (None, *AUDIT_STATUSES):
        raise RecordError(f"the record of {key!r} has audit_status "
                          f"{known['audit_status']!r}; expected one of "
                          f"{', '.join(AUDIT_STATUSES)}")
    from cattrs.errors import BaseValidationError

    try:
        record = converter().structure(known, LockRecord)
    except (BaseValidationError, TypeError, ValueError) as exc:  # keep one reason
        raise RecordError(f"the record of {key!r} is malformed: {_reason(exc)}") from None
    return attrs.evolve(record, extra=extra) if extra else record


def unstructure_record(record: LockRecord) -> dict[str, Any]:
    """``record`` as JSON data: known fields first, then the unknown ones it was read with."""
    data = converter().unstructure(record)
    data.pop("extra", None)
    if not data.get("targets"):
        data.pop("targets", None)
    for optional in ("audit_override", "file_hashes", "tree_id"):
        if data.get(optional) is None:
            data.pop(optional, None)
    for name, value in record.extra.items():
        data.setdefault(name, value)
    return data


__all__ = ["AUDIT_STATUSES", "TARGET_MODES", "AgentTarget", "AuditOverride", "LockRecord", "RecordError", "converter",
           "structure_record", "unstructure_record"]
