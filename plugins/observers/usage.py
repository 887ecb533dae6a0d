"""The ``observers.usage`` plugin: counts skill loads in the usage sidecar.

It implements ``lemon_skill_loaded`` only, through the ``lemon.observers`` entry-point group as
any third party's observer would. The event's ``metadata`` names the context's ``agent_dir``
and ``project_dir``; a found load by an agent (``metadata["reader"]`` is not ``"person"``) of a project or global skill adds one to its ``loads`` and
sets ``last_loaded_at`` in that scope's ``skills.usage.json`` (see
:mod:`lemon_core.usage_kit`). Turn it off with ``LEMON_DISABLE_PLUGINS=observers.usage``.
A sidecar that cannot be written is logged; the load goes on.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from lemon_core import hookimpl

_log = logging.getLogger(__name__)


@hookimpl
def lemon_skill_loaded(event: Any) -> None:
    from lemon_core.errors import LemonError
    from lemon_core.usage_kit import USAGE_FILE, SkillUsage, stamp, update_usage

    metadata = event.metadata or {}
    if not event.found or event.scope not in ("project", "global") \
            or metadata.get("reader") == "person":  # a person's read is no agent's use
        return
    if event.scope == "project":
        base = metadata.get("project_dir")
        root = Path(base) if base else None
        path = root / ".lemon" / USAGE_FILE if root else None
    else:
        base = metadata.get("agent_dir")
        root, path = None, (Path(base) / USAGE_FILE if base else None)
    if path is None:
        return
    now = stamp()

    def change(usage: SkillUsage) -> SkillUsage:
        import attrs

        return attrs.evolve(usage, loads=usage.loads + 1, last_loaded_at=now)

    try:
        update_usage(path, {event.key: change}, root=root)
    except (LemonError, OSError) as exc:
        _log.warning("the load of skill %s was not counted: %s", event.key,
                     getattr(exc, "message", exc))
