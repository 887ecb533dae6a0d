"""``skills.json``: which skills are switched off, per scope.

Global ``<agent dir>/skills.json`` and project ``<cwd>/.lemon/skills.json``::

    {"disabled": ["key", ...], "enabled": ["key", ...], "skills": {"key": {"enabled": false}}}

``disabled`` is what ``lemon skill disable`` writes; ``enabled`` records an explicit
``lemon skill enable --local`` so a project can switch back on a skill the global file
disables. The project file's state for a key overrides the global file's; within one file
``disabled`` wins. Unknown fields are preserved on every write.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import ConfigError
from lemon_core.fsio import FileProblem, Snapshot, dump_json, read_bytes, update_file
from lemon_core.jsondata import loads
from lemon_core.models import Diagnostic

SETTINGS_FILE = "skills.json"
MAX_SETTINGS_BYTES = 4 * 1024 * 1024


def settings_path(ctx: LemonContext, *, local: bool) -> Path:
    """The project (``local``) or global file; the global one below ``ctx.agent_dir`` even
    when home is unusable (readers check :func:`global_settings_path`)."""
    return (ctx.project_lemon_dir if local else ctx.agent_dir) / SETTINGS_FILE


def global_settings_path(ctx: LemonContext) -> Path | None:
    """The global file, or None when its folder derives from an unusable home."""
    agent_dir = ctx.usable_agent_dir
    return None if agent_dir is None else agent_dir / SETTINGS_FILE


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


def _parse(data: bytes) -> dict[str, Any]:
    """The document; raises :class:`FileProblem` (its message names no path)."""
    document = loads(data) if data.strip() else {}
    if not isinstance(document, dict):
        raise FileProblem("schema", "must hold a JSON object")
    for field in ("disabled", "enabled"):
        value = document.get(field, [])
        if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
            raise FileProblem("schema", f"{field!r} must be a list of skill keys")
    if not isinstance(document.get("skills", {}), dict):
        raise FileProblem("schema", "'skills' must be an object keyed by skill key")
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
    """The file's settings; a missing file is empty, a broken one is empty plus a diagnostic.

    Read through the safe reader (at most :data:`MAX_SETTINGS_BYTES`, regular files only) and
    parsed by :mod:`lemon_core.jsondata`; a file that cannot be used is ``unreadable_settings``
    (a FIFO, a device, a folder, too large, or a folder on its path that is a file) or
    ``invalid_settings`` (not JSON, nested too deeply, the wrong shape). The diagnostic's
    message never repeats the path: the diagnostic carries it.
    """
    try:
        data = read_bytes(path, MAX_SETTINGS_BYTES)
        if data is None:
            return SkillSettings(), None
        return _settings_of(_parse(data)), None
    except FileProblem as problem:
        code = "unreadable_settings" if problem.kind == "read" else "invalid_settings"
        return SkillSettings(), Diagnostic(
            str(path), "error", code,
            f"{problem.message}; its enable/disable settings are ignored until it is fixed "
            "or removed")


def is_disabled(key: str, project: SkillSettings, global_: SkillSettings) -> bool:
    return disabled_by(key, project, global_) is not None


def disabled_by(key: str, project: SkillSettings, global_: SkillSettings) -> str | None:
    """Which file switches ``key`` off: ``"project"`` (its ``.lemon/skills.json``, undone by
    ``enable --local``), ``"global"``, or None when the skill is on."""
    state = project.state(key)
    if state is not None:
        return "project" if state is False else None
    return "global" if global_.state(key) is False else None


def enable_hint(key: str, where: str) -> str:
    """The command that switches ``key`` back on where ``where`` (see :func:`disabled_by`)
    switched it off: a project's setting is undone in the project, not globally."""
    local = " --local" if where == "project" else ""
    return f"lemon skill enable{local} {key}"


def set_enabled(ctx: LemonContext, key: str, enabled: bool, *, local: bool) -> Path:
    """Switch ``key`` on or off in the global (or, with ``local``, the project) file."""
    path = settings_path(ctx, local=local)
    if not local and global_settings_path(ctx) is None:
        raise ConfigError(
            f"cannot change the global settings: the home directory {ctx.home} "
            f"{ctx.home_problem}; set HOME to an existing absolute folder (or LEMON_AGENT_DIR)")

    def transform(current: Snapshot) -> bytes:
        try:
            document = _parse(current.content or b"")
        except FileProblem as problem:
            raise ConfigError(f"{path}: {problem.message}; fix or remove it") from None
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
        update_file(path, transform, root=ctx.cwd if local else None)
    except OSError as exc:
        raise ConfigError(
            f"cannot write {path}: {exc.strerror or exc}; check that its folder is writable"
        ) from None
    return path


__all__ = ["SETTINGS_FILE", "SkillSettings", "disabled_by", "enable_hint",
           "global_settings_path", "is_disabled",
           "read_settings", "set_enabled", "settings_path"]
