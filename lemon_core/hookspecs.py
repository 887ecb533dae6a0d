"""THE plugin contract of lemon: every hook, typed and documented.

A plugin is a module (or object) with functions marked ``@hookimpl`` and named after the hooks
below, registered through an entry point in one of the groups ``lemon.sources``,
``lemon.mcp_importers``, ``lemon.auditors``, ``lemon.commands`` (commands added to the CLI) or
``lemon.observers`` (a plugin that only observes lemon's events: a usage recorder, a telemetry
exporter)::

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
point name>`` (``sources.s3``), so the same short name may be used in two groups. The plugin
author guide, ``docs/plugins.md``, has a complete example and a reference of every hook.

Rules of the contract:

- There are four plugin families, one entry-point group and one *registration* hook each
  (:data:`REGISTRATION_HOOKS`). A plugin receives a ``register`` callable and registers objects
  satisfying a protocol of :mod:`lemon_core.protocols`. The host orders them by their ``order``
  attribute and rejects two objects of one family with the same ``name``, naming both plugins.
- A plugin implements only the registration hook of its own group, plus any observer hook
  (:data:`OBSERVER_HOOKS`). Something that is both a source and an auditor ships two entry
  points, so each can be listed and disabled on its own. A plugin of the observer group
  (:data:`OBSERVER_GROUP`) implements observer hooks only.
- Hooks may gain arguments, never lose or rename them; an implementation may accept fewer
  arguments than its spec (pluggy's opt-in arguments), so adding one never breaks a plugin.
- A hook implementation whose name matches no hook below is an error at load time, unless it
  is marked ``@hookimpl(optionalhook=True)`` (for a hook of a newer lemon). A function named
  after a hook but not marked ``@hookimpl`` is an error too.
- lemon calls each implementation itself, to attribute objects and failures to a plugin, so
  implementations may not be wrappers (``wrapper=True`` / ``hookwrapper=True``).
- Observer hooks are notifications: their return values are ignored, an exception in one is
  reported and does not stop the others, and they never receive a skill's body.
- No hook is ``firstresult``: every implementation of every hook is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from lemon_core.protocols import (
        Auditor,
        CliCommand,
        CommandKit,
        McpImporter,
        SkillLoadEvent,
        SkillSource,
        SkillWriteEvent,
    )

PROJECT_NAME = "lemon"

#: Marks the hook specifications below (lemon's own use).
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
#: Marks a plugin's hook implementations; also importable as ``lemon_core.hookimpl``.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# -- skill sources (group ``lemon.sources``) -----------------------------------------------------


@hookspec
def lemon_register_sources(register: Callable[[SkillSource], None]) -> None:
    """Register skill sources: where ``lemon skill install`` can fetch skills from.

    Called when lemon first needs the list of sources (routing an identifier, searching), at
    most once per loaded set of plugins.

    :param register: call once per :class:`~lemon_core.protocols.SkillSource` object, during
        this hook only. The installer routes an identifier to the first source, by ``order``,
        whose ``parse`` accepts it.
    :returns: nothing; results are ignored.
    """


# -- MCP config importers (group ``lemon.mcp_importers``) -----------------------------------------


@hookspec
def lemon_register_mcp_importers(register: Callable[[McpImporter], None]) -> None:
    """Register importers of other tools' MCP server configuration.

    Called when lemon first needs the list of importers (``lemon mcp list``, the effective
    server set), at most once per loaded set of plugins.

    :param register: call once per :class:`~lemon_core.protocols.McpImporter` object, during
        this hook only. The host (:func:`lemon_core.mcp.importing.import_servers`) calls
        importers in ``order`` (the provider order), decides which scopes each may read (user
        files are opt-in), keeps project reads off every provider's user files, applies the
        first-valid-entry-claims-the-name rule, and turns an importer's exception into an
        error record. File-based importers subclass
        :class:`lemon_core.mcp.importer_kit.files.FileImporter`; see ``docs/mcp-importers.md``.
    :returns: nothing; results are ignored.
    """


# -- auditors (group ``lemon.auditors``) --------------------------------------------------------


@hookspec
def lemon_register_auditors(register: Callable[[Auditor], None]) -> None:
    """Register skill auditors: static checks run on a bundle before it is activated.

    Called when lemon first needs the list of auditors (before installing or updating a
    skill), at most once per loaded set of plugins.

    :param register: call once per :class:`~lemon_core.protocols.Auditor` object, during this
        hook only. Every registered auditor runs; their findings are combined, and the verdict
        is the worst severity found (``block`` > ``warn`` > pass).
    :returns: nothing; results are ignored.
    """


# -- CLI commands (group ``lemon.commands``) ---------------------------------------------------


@hookspec
def lemon_register_commands(register: Callable[[CliCommand], None], kit: CommandKit) -> None:
    """Add commands to the ``lemon`` CLI (as the ``llm`` tool's ``register_commands`` does).

    Called by the CLI when a run names a command that is not one of lemon's own (``lemon skill
    hermes``), and by ``lemon plugins list``; never for ``lemon --help`` or for lemon's own
    commands, so a plugin's imports cost them nothing.

    :param register: call once per :class:`~lemon_core.protocols.CliCommand` (a name, the group
        it joins, a Typer command function), during this hook only. A name that is one of
        lemon's own commands of that group, or that another plugin registered, is an error
        naming both.
    :param kit: a :class:`~lemon_core.protocols.CommandKit`: the run's context, lemon's
        ``--cwd`` and ``--json`` options, and escaped output, so a command behaves as lemon's
        own without importing lemon's CLI (opt-in: an implementation may take ``register``
        alone).
    :returns: nothing; results are ignored.
    """


# -- observers (any group) ----------------------------------------------------------------------


@hookspec
def lemon_skill_loaded(event: SkillLoadEvent) -> None:
    """A skill was loaded by an agent or a user, or a load named an unknown skill.

    Called after every ``read_skill`` / ``load_skill`` / ``skill://`` read, found or not.

    :param event: a :class:`~lemon_core.protocols.SkillLoadEvent`: key, whether it was found,
        the view, scope and SKILL.md path, and the caller's ``tool_call_id``; never the
        skill's body.
    :returns: nothing; results are ignored. An exception raised here is reported and does not
        stop the load or the other observers.
    """


@hookspec
def lemon_skill_written(event: SkillWriteEvent) -> None:
    """A skill was written (installed, updated, removed, edited) or a write was refused.

    Called after every install, update, uninstall and ``skill_manage`` action, accepted or
    refused.

    :param event: a :class:`~lemon_core.protocols.SkillWriteEvent`: key, action, whether it
        was accepted (and why not), scope and path; never file contents.
    :returns: nothing; results are ignored. An exception raised here is reported and does not
        undo the write or stop the other observers.
    """


#: Entry-point group → the one registration hook a plugin of that group may implement.
REGISTRATION_HOOKS: dict[str, str] = {
    "lemon.sources": "lemon_register_sources",
    "lemon.mcp_importers": "lemon_register_mcp_importers",
    "lemon.auditors": "lemon_register_auditors",
    "lemon.commands": "lemon_register_commands",
}

#: The entry-point group of plugins that only observe (observer hooks, no registration hook).
OBSERVER_GROUP = "lemon.observers"

#: Hooks any plugin may implement, whatever its group.
OBSERVER_HOOKS: tuple[str, ...] = ("lemon_skill_loaded", "lemon_skill_written")


__all__ = [
    "OBSERVER_GROUP",
    "OBSERVER_HOOKS",
    "PROJECT_NAME",
    "REGISTRATION_HOOKS",
    "hookimpl",
    "hookspec",
    "lemon_register_auditors",
    "lemon_register_commands",
    "lemon_register_mcp_importers",
    "lemon_register_sources",
    "lemon_skill_loaded",
    "lemon_skill_written",
]
