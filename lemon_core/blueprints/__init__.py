"""Blueprint bundles: a folder under ``<agent dir>/bundles/<id>/`` holding ``blueprint.toml``
(version 1: skills by install identifier, MCP servers in the schema of lemon's ``mcp.json``,
profiles selecting them and the scope) and the files it ships.

:func:`open_bundle` reads one (:mod:`.parse`), :func:`preview` resolves, lints and audits it
and gives its digest (:mod:`.plan`, :mod:`.digest`), :func:`apply` writes it only with that
fresh digest, all or nothing (:mod:`.apply`), :func:`list_bundles` lists the agent dir's.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lemon_core.blueprints.apply import Applied, apply
from lemon_core.blueprints.model import (
    Blueprint,
    BlueprintError,
    Profile,
    SkillEntry,
    StaleDigest,
)
from lemon_core.blueprints.parse import SAFE_NAME, bundles_dir, load
from lemon_core.blueprints.plan import Plan, bundle_root, open_bundle, preview

if TYPE_CHECKING:
    from lemon_core.context import LemonContext


def list_bundles(ctx: LemonContext) -> list[Blueprint | tuple[str, BlueprintError]]:
    """Every bundle of the agent dir, sorted by id: parsed, or its id and why it is not
    usable (a folder whose name is not a safe id is skipped)."""
    root = bundles_dir(ctx.agent_dir)
    try:
        names = sorted(os.listdir(root))
    except (FileNotFoundError, NotADirectoryError):
        return []
    out: list[Blueprint | tuple[str, BlueprintError]] = []
    for name in names:
        if SAFE_NAME.fullmatch(name) is None or ".." in name:
            continue
        try:
            out.append(load(root / name, name))
        except BlueprintError as exc:
            out.append((name, exc))
    return out


__all__ = ["Applied", "Blueprint", "BlueprintError", "Plan", "Profile", "SkillEntry",
           "StaleDigest", "apply", "bundle_root", "list_bundles", "open_bundle", "preview"]
