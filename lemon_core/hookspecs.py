"""THE plugin contract of lemon: every hook, typed and documented.

A plugin is a module (or object) with functions marked ``@hookimpl`` and named after the hooks
below, registered through an entry point in one of the groups ``lemon.sources``,
``lemon.mcp_importers`` or ``lemon.auditors``::

    # pyproject.toml of a third-party plugin
    [project.entry-points."lemon.sources"]
    s3 = "lemon_s3_source"

    # lemon_s3_source.py
    from lemon_core import hookimpl

    class S3Source:
        name = "s3"
        order = 65
        ...

    @hookimpl
    def lemon_register_sources(register):
        register(S3Source())

lemon registers each entry point under a qualified name, ``<group without "lemon.">.<entry
point name>`` (``sources.s3``), so the same short name may be used in two groups.

Rules of the contract:

- Registration hooks receive a ``register`` callable; the plugin registers objects satisfying a
  protocol of :mod:`lemon_core.protocols`. The host orders them by their ``order`` attribute and
  rejects two objects of one family with the same ``name``, naming both plugins.
- Hooks may gain arguments, never lose or rename them; an implementation may accept fewer
  arguments than its spec (pluggy's opt-in arguments), so adding one never breaks a plugin.
- A hook implementation whose name matches no hook below is an error at load time.
- Observer hooks are notifications: their return values are ignored, and they never receive a
  skill's body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from lemon_core.protocols import (
        Auditor,
        McpImporter,
        SkillLoadEvent,
        SkillSource,
        SkillWriteEvent,
    )

PROJECT_NAME = "lemon"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# -- skill sources (group ``lemon.sources``) -----------------------------------------------------


@hookspec
def lemon_register_sources(register: Callable[[SkillSource], None]) -> None:
    """Register skill sources: where ``lemon skill install`` can fetch skills from.

    :param register: call once per :class:`~lemon_core.protocols.SkillSource` object. The
        installer routes an identifier to the first source, by ``order``, whose ``parse``
        accepts it.
    :returns: nothing; results are ignored.
    """


# -- MCP config importers (group ``lemon.mcp_importers``) -----------------------------------------


@hookspec
def lemon_register_mcp_importers(register: Callable[[McpImporter], None]) -> None:
    """Register importers of other tools' MCP server configuration.

    :param register: call once per :class:`~lemon_core.protocols.McpImporter` object. The host
        calls importers in ``order`` (the provider order), decides which scopes each may read
        (user files are opt-in), and applies the first-entry-claims-the-name rule.
    :returns: nothing; results are ignored.
    """


# -- auditors (group ``lemon.auditors``) --------------------------------------------------------


@hookspec
def lemon_register_auditors(register: Callable[[Auditor], None]) -> None:
    """Register skill auditors: static checks run on a bundle before it is activated.

    :param register: call once per :class:`~lemon_core.protocols.Auditor` object. Every
        registered auditor runs; their findings are combined, and the verdict is the worst
        severity found (``block`` > ``warn`` > pass).
    :returns: nothing; results are ignored.
    """


# -- observers (any group) ----------------------------------------------------------------------


@hookspec
def lemon_skill_loaded(event: SkillLoadEvent) -> None:
    """A skill was loaded by an agent or a user, or a load named an unknown skill.

    :param event: key, whether it was found, the view, scope and SKILL.md path, and the
        caller's ``tool_call_id``; never the skill's body.
    :returns: nothing; results are ignored. An exception raised here is reported and does not
        stop the load.
    """


@hookspec
def lemon_skill_written(event: SkillWriteEvent) -> None:
    """A skill was written (installed, updated, removed, edited) or a write was refused.

    :param event: key, action, whether it was accepted (and why not), scope and path; never
        file contents.
    :returns: nothing; results are ignored. An exception raised here is reported and does not
        undo the write.
    """


__all__ = [
    "hookimpl",
    "hookspec",
    "lemon_register_auditors",
    "lemon_register_mcp_importers",
    "lemon_register_sources",
    "lemon_skill_loaded",
    "lemon_skill_written",
]
