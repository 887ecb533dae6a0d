"""Manifests and entries to and from plain data: the JSON contract and the catalog cache.

This runs for every skill on ``lemon skill list``, so it is written out by hand for speed; the
reading side checks every type, so a tampered or stale cache is rejected, never trusted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from lemon_core.models import Reference, SkillEntry, SkillManifest, SkillStatus, Verification

_STR_OR_NONE = ("name", "version", "author")
_STR_LISTS = tuple(
    f.name for f in attrs.fields(SkillManifest) if f.type in ("tuple[str, ...]", tuple[str, ...])
)
_MAPS = ("metadata", "extra")


class CacheFormatError(ValueError):
    """Cached data does not have the shape lemon writes."""


def manifest_to_data(manifest: SkillManifest) -> dict[str, Any]:
    """Every field, lists for tuples; the inverse of :func:`manifest_from_data`."""
    data: dict[str, Any] = {}
    for field in attrs.fields(SkillManifest):
        value = getattr(manifest, field.name)
        if field.name == "verification":
            value = attrs.asdict(value) if value is not None else None
        elif field.name == "references":
            value = [attrs.asdict(ref) for ref in value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        data[field.name] = value
    return data


def _check(condition: bool, field: str) -> None:
    if not condition:
        raise CacheFormatError(f"bad cached field {field!r}")


def manifest_from_data(data: Any) -> SkillManifest:
    """Rebuild a manifest written by :func:`manifest_to_data`; raises CacheFormatError."""
    _check(isinstance(data, dict), "manifest")
    for name in _STR_OR_NONE:
        _check(data.get(name) is None or isinstance(data.get(name), str), name)
    _check(isinstance(data.get("description"), str), "description")
    _check(isinstance(data.get("format"), str), "format")
    _check(isinstance(data.get("hide"), bool), "hide")
    for name in _STR_LISTS:
        value = data.get(name)
        _check(isinstance(value, list) and all(isinstance(v, str) for v in value), name)
    for name in _MAPS:
        _check(isinstance(data.get(name), dict), name)
    verification = data.get("verification")
    references = data.get("references")
    _check(isinstance(references, list) and all(isinstance(r, dict) for r in references),
           "references")
    try:
        return SkillManifest(
            **{k: v for k, v in data.items() if k not in ("verification", "references")},
            verification=Verification(**verification) if verification is not None else None,
            references=tuple(Reference(**ref) for ref in references),
        )
    except TypeError as exc:
        raise CacheFormatError(str(exc)) from None


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
    """One ``ENTRY`` of ``lemon skill list --json``."""
    manifest = entry.manifest
    return {
        "key": entry.key,
        "name": entry.name,
        "description": manifest.description,
        "scope": scope or entry.scope,
        "root": str(entry.root),
        "dir": str(entry.dir),
        "path": str(entry.path),
        "state": status.state,
        "hidden": manifest.hide,
        "disabled": status.disabled,
        "tags": list(manifest.tags),
        "keywords": list(manifest.keywords),
        "category": manifest.category,
        "shadowed": [str(p) for p in entry.shadowed],
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
