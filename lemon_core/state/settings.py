"""``skills.json``: which skills are switched off, per scope.

Global ``<agent dir>/skills.json`` and project ``<cwd>/.lemon/skills.json``::

    {"disabled": ["key", ...], "enabled": ["key", ...], "skills": {"key": {"enabled": false}}}

``disabled`` is what ``lemon skill disable`` writes; ``enabled`` records an explicit
``lemon skill enable --local`` so a project can switch back on a skill the global file
disables. The project file's state for a key overrides the global file's; within one file
``disabled`` wins. Unknown fields are preserved on every write.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError
from lemon_core.fsio import Snapshot, dump_json, update_file
from lemon_core.models import Diagnostic

SETTINGS_FILE = "skills.json"
MAX_SETTINGS_BYTES = 4 * 1024 * 1024


def settings_path(ctx: LemonContext, *, local: bool) -> Path:
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / SETTINGS_FILE


@attrs.frozen
class SkillSettings:
    """One file's opinion: True (on), False (off) or absent, per key."""

    disabled: frozenset[str] = frozenset()
    enabled: frozenset[str] = frozenset()

    def state(self, key: str) -> bool | None:
        if key in self.disabled:
            return False
        if key in self.enabled:
            return True
        return None


def _parse(data: bytes, path: Path) -> dict[str, Any]:
    if len(data) > MAX_SETTINGS_BYTES:
        raise ConfigError(f"{path} is larger than {MAX_SETTINGS_BYTES} bytes; fix or remove it")
    try:
        document = json.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix or remove it") from None
    if not isinstance(document, dict):
        raise ConfigError(f"{path} must hold a JSON object; fix or remove it")
    for field in ("disabled", "enabled"):
        value = document.get(field, [])
        if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
            raise ConfigError(f"{path}: {field!r} must be a list of skill keys")
    if not isinstance(document.get("skills", {}), dict):
        raise ConfigError(f"{path}: 'skills' must be an object keyed by skill key")
    return document


def _settings_of(document: Mapping[str, Any]) -> SkillSettings:
    disabled = set(document.get("disabled", []))
    enabled = set(document.get("enabled", []))
    for key, config in document.get("skills", {}).items():
        flag = config.get("enabled") if isinstance(config, dict) else None
        if flag is False:
            disabled.add(key)
        elif flag is True:
            enabled.add(key)
    return SkillSettings(frozenset(disabled), frozenset(enabled))


def read_settings(path: Path) -> tuple[SkillSettings, Diagnostic | None]:
    """The file's settings; a missing file is empty, a broken one is empty plus a diagnostic."""
    snapshot = Snapshot.read(path)
    if snapshot.content is None:
        return SkillSettings(), None
    try:
        return _settings_of(_parse(snapshot.content, path)), None
    except ConfigError as exc:
        return SkillSettings(), Diagnostic(str(path), "error", "invalid_settings", str(exc))


def is_disabled(key: str, project: SkillSettings, global_: SkillSettings) -> bool:
    state = project.state(key)
    if state is None:
        state = global_.state(key)
    return state is False


def set_enabled(ctx: LemonContext, key: str, enabled: bool, *, local: bool) -> Path:
    """Switch ``key`` on or off in the global (or, with ``local``, the project) file."""
    path = settings_path(ctx, local=local)

    def transform(current: Snapshot) -> bytes:
        document = _parse(current.content or b"", path)
        disabled = [k for k in document.get("disabled", []) if k != key]
        explicit = [k for k in document.get("enabled", []) if k != key]
        if enabled:
            if local:
                explicit.append(key)
        else:
            disabled.append(key)
        document["disabled"] = disabled
        if explicit or "enabled" in document:
            document["enabled"] = explicit
        config = document.get("skills", {}).get(key)
        if isinstance(config, dict) and "enabled" in config:
            config["enabled"] = enabled
        return dump_json(document)

    try:
        update_file(path, transform)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {path}: {exc.strerror or exc}; check that its folder is writable"
        ) from None
    return path


__all__ = ["SETTINGS_FILE", "SkillSettings", "is_disabled", "read_settings", "set_enabled",
           "settings_path"]
