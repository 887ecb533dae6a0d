"""The ``[skills]`` table of lemon's ``config.toml``: what ``skill_manage`` reads.

Two files: ``<agent dir>/config.toml`` and the project's ``.lemon/config.toml``; a key set in
the project wins. ``write_approval`` (default false): every mutating ``skill_manage`` action
asks a person first. ``learning_nudge`` (default true): the prompt listing tells the agent
when to record a lesson with ``skill_manage``. A file that cannot be read or parsed is
refused with its path, never ignored (a broken file must not turn approval off silently).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lemon_core.errors import ConfigError

if TYPE_CHECKING:
    from lemon_core.context import LemonContext

CONFIG_FILE = "config.toml"


@attrs.frozen
class SkillsConfig:
    write_approval: bool = False
    learning_nudge: bool = True


def _table(path: Path) -> dict[str, Any]:
    import tomllib

    from lemon_core.fsio.read import FileProblem, decode_utf8, read_bytes

    try:
        data = read_bytes(path)
    except FileProblem as problem:
        raise ConfigError(f"{path}: {problem.message}; fix or remove it") from None
    if data is None:
        return {}
    try:
        document = tomllib.loads(decode_utf8(data))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or remove it") from None
    table = document.get("skills", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [skills] must be a table; fix or remove it")
    for name in ("write_approval", "learning_nudge"):
        if name in table and not isinstance(table[name], bool):
            raise ConfigError(f"{path}: [skills] {name} must be true or false")
    return table


def config_paths(ctx: LemonContext) -> list[Path]:
    """The files read, global first (the project's wins)."""
    paths = []
    agent_dir = ctx.usable_agent_dir
    if agent_dir is not None:
        paths.append(agent_dir / CONFIG_FILE)
    paths.append(ctx.project_lemon_dir / CONFIG_FILE)
    return paths


def skills_config(ctx: LemonContext) -> SkillsConfig:
    """The merged ``[skills]`` settings of ``ctx`` (project over global)."""
    merged: dict[str, Any] = {}
    for path in config_paths(ctx):
        merged.update(_table(path))
    return SkillsConfig(write_approval=merged.get("write_approval", False),
                        learning_nudge=merged.get("learning_nudge", True))


__all__ = ["CONFIG_FILE", "SkillsConfig", "config_paths", "skills_config"]
