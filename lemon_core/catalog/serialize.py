"""Manifests and entries to and from plain data: the JSON contract and the catalog cache.

This runs for every skill on ``lemon skill list``, so it is written out by hand for speed. The
cache only reaches the reading side once its MAC verifies (:mod:`lemon_core.catalog.cache`);
the reading side still checks every type, so a file of another shape is rejected, never trusted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from lemon_core.models import (
    Reference,
    SkillEntry,
    SkillManifest,
    SkillStatus,
    Verification,
)


class CacheFormatError(ValueError):
    """Cached data does not have the shape lemon writes."""


def _fail(field: str) -> Any:
    raise CacheFormatError(f"bad cached field {field!r}")


def _text_or_none(value: Any) -> str | None:
    return value if value is None or type(value) is str else _fail("text")


def _text(value: Any) -> str:
    return value if type(value) is str else _fail("text")


def _flag(value: Any) -> bool:
    return value if type(value) is bool else _fail("flag")


def _texts(value: Any) -> tuple[str, ...]:
    if type(value) is list and all(type(item) is str for item in value):
        return tuple(value)
    return _fail("list")


def _mapping(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else _fail("mapping")


def _verification(value: Any) -> Verification:
    if type(value) is not dict or type(value.get("command")) is not str:
        return _fail("verification")
    if type(value.get("expect_exit", 0)) is not int:
        return _fail("verification")
    return Verification(value["command"], value.get("expect_exit", 0),
                        _text_or_none(value.get("expect_output")))


def _references(value: Any) -> tuple[Reference, ...]:
    if type(value) is not list:
        return _fail("references")
    refs = []
    for item in value:
        if type(item) is not dict or not set(item) <= {"path", "url", "description"}:
            return _fail("references")
        refs.append(Reference(*(_text_or_none(item.get(k)) for k in ("path", "url",
                                                                        "description"))))
    return tuple(refs)


#: How each cached manifest field is checked and rebuilt; a field not here is rejected.
_READERS: dict[str, Callable[[Any], Any]] = {
    "name": _text_or_none, "version": _text_or_none, "author": _text_or_none,
    "description": _text, "format": _text, "hide": _flag,
    "metadata": _mapping, "extra": _mapping,
    "verification": _verification, "references": _references,
    **{f.name: _texts for f in attrs.fields(SkillManifest)
       if f.type in ("tuple[str, ...]", tuple[str, ...])},
}
_DEFAULTS = {
    f.name: f.default.factory() if isinstance(f.default, attrs.Factory) else f.default  # type: ignore[union-attr]
    for f in attrs.fields(SkillManifest)
}


def manifest_to_data(manifest: SkillManifest) -> dict[str, Any]:
    """The fields that differ from their defaults, as plain data (the catalog cache keeps
    10,000s of these: defaults are left out)."""
    data: dict[str, Any] = {}
    for name, default in _DEFAULTS.items():
        value = getattr(manifest, name)
        if value == default:
            continue
        if name == "verification":
            value = attrs.asdict(value)
        elif name == "references":
            value = [attrs.asdict(ref) for ref in value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        data[name] = value
    return data


def manifest_from_data(data: Any) -> SkillManifest:
    """Rebuild a manifest written by :func:`manifest_to_data`; raises CacheFormatError."""
    if type(data) is not dict:
        return _fail("manifest")
    fields = {}
    for name, value in data.items():
        reader = _READERS.get(name)
        fields[name] = reader(value) if reader is not None else _fail(name)
    return SkillManifest(**fields)


def manifest_view(manifest: SkillManifest) -> dict[str, Any]:
    """The ``manifest`` object of ``lemon skill inspect --json``."""
    verification = manifest.verification
    return {
        "name": manifest.name,
        "description": manifest.description,
        "version": manifest.version,
        "author": manifest.author,
        "tags": list(manifest.tags),
        "keywords": list(manifest.keywords),
        "platforms": list(manifest.platforms),
        "requires": {"bins": list(manifest.requires_bins),
                     "config": list(manifest.requires_config)},
        "requires_tools": list(manifest.requires_tools),
        "fallback_for_tools": list(manifest.fallback_for_tools),
        "required_environment_variables": list(manifest.required_environment_variables),
        "optional_environment_variables": list(manifest.optional_environment_variables),
        "verification": attrs.asdict(verification) if verification is not None else None,
        "references": [
            {k: v for k, v in attrs.asdict(ref).items() if v is not None}
            for ref in manifest.references
        ],
        "metadata": dict(manifest.metadata),
        "hide": manifest.hide,
        "extra": dict(manifest.extra),
    }


def entry_view(entry: SkillEntry, status: SkillStatus, scope: str | None = None) -> dict[str, Any]:
    """One ``ENTRY`` of ``lemon skill list --json`` (lists are tuples, ready for ``json``)."""
    manifest = entry.manifest
    return {
        "key": entry.key,
        "name": entry.name,
        "description": manifest.description,
        "scope": scope or entry.scope,
        "root": entry.root,
        "dir": entry.dir,
        "path": entry.path,
        "state": status.state,
        "hidden": manifest.hide,
        "disabled": status.disabled,
        "tags": manifest.tags,  # tuples: JSON arrays to the encoder, no copy per entry
        "keywords": manifest.keywords,
        "category": manifest.category,
        "shadowed": entry.shadowed,
    }


def status_view(status: SkillStatus) -> dict[str, Any]:
    """The object of ``lemon skill check --json``."""
    result = status.verification
    return {
        "key": status.key,
        "state": status.state,
        "ready": status.ready,
        "missing_bins": list(status.missing_bins),
        "missing_config": list(status.missing_config),
        "missing_env_vars": list(status.missing_env_vars),
        "missing_tools": list(status.missing_tools),
        "platform_ok": status.platform_ok,
        "verification": None if result is None else {
            "exit_code": result.exit_code, "passed": result.passed,
            **({"error": result.error} if result.error else {}),
        },
    }


__all__ = ["CacheFormatError", "entry_view", "manifest_from_data", "manifest_to_data",
           "manifest_view", "status_view"]
