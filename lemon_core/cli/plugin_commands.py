"""Commands plugins add to ``lemon`` (the ``lemon_register_commands`` hook).

lemon's own commands are built in; a plugin's are added when a run names a command the built-in
tree does not hold (``lemon skill hermes``): only then are the command plugins loaded
(:func:`wanted`), so ``lemon --help`` and lemon's own commands never import a plugin. Each
:class:`~lemon_core.protocols.CliCommand` joins its group (``skill``, ``mcp``, ``plugins``, or
the top level) through Typer's public ``command`` decorator; a name that is one of lemon's own
commands there is an error naming the plugin. The plugins receive a :class:`Kit` (the
:class:`~lemon_core.protocols.CommandKit`): the context, lemon's options and escaped output.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from lemon_core.cli.dispatch import command_name

if TYPE_CHECKING:
    from lemon_core.context import LemonContext
    from lemon_core.plugin_registry import Plugins

#: The entry-point group of command plugins (``load_plugins(needs=...)``).
GROUP = "lemon.commands"


class Kit:
    """The :class:`~lemon_core.protocols.CommandKit` lemon hands command plugins."""

    def context(self, cwd: Path | None = None) -> LemonContext:
        from lemon_core.context import LemonContext

        return LemonContext.from_environment(cwd)

    def cwd_option(self) -> Any:
        from lemon_core.cli.params import cwd_option

        return cwd_option()

    def json_option(self) -> Any:
        from lemon_core.cli.params import json_option

        return json_option()

    def say(self, *lines: object) -> None:
        from lemon_core.cli.output import say

        say(*lines)

    def emit_json(self, data: Any) -> None:
        from lemon_core.cli.output import emit_json

        emit_json(data)

    def table(self, rows: Sequence[Sequence[object]], headers: Sequence[str]) -> object:
        from lemon_core.cli.output import table

        return table(rows, headers)

    def one_line(self, text: str, limit: int = 80) -> str:
        from lemon_core.cli.output import one_line

        return one_line(text, limit)


def _groups(app: typer.Typer) -> dict[str, typer.Typer]:
    return {g.name: g.typer_instance for g in app.registered_groups
            if g.name and g.typer_instance is not None}


def _names(app: typer.Typer) -> set[str]:
    """The commands and groups ``app`` holds, by the name they are called."""
    return ({n for n in (command_name(c) for c in app.registered_commands) if n}
            | set(_groups(app)))


def wanted(app: typer.Typer, argv: Sequence[str]) -> bool:
    """Whether ``argv`` names a command lemon's own tree does not hold (a plugin's, or none)."""
    if not argv or argv[0].startswith("-"):
        return False
    group = _groups(app).get(argv[0])
    if group is None:
        return argv[0] not in _names(app)
    return len(argv) > 1 and not argv[1].startswith("-") and argv[1] not in _names(group)


#: The attribute marking a function lemon added as a plugin command: the paths it was added as.
_MARK = "__lemon_plugin_commands__"


def _added_earlier(target: typer.Typer, name: str, path: str) -> bool:
    """Whether ``target``'s command ``name`` is a plugin command added as ``path`` before."""
    return any(command_name(info) == name and path in getattr(info.callback, _MARK, ())
               for info in target.registered_commands)


def add_commands(app: typer.Typer, plugins: Plugins | None = None) -> list[str]:
    """Add every plugin command to ``app`` (once per process: a command already there from the
    same plugin is left as it is); returns the paths added.

    :raises PluginError: when a plugin's command has a name lemon's own group holds, or names
        a group lemon does not have.
    """
    from lemon_core.errors import PluginError

    if plugins is None:
        from lemon_core.plugins import load_plugins

        plugins = load_plugins(needs=(GROUP,))
    added = []
    groups = _groups(app)
    owners = {path: owner for owner, paths in plugins.command_owners(Kit()).items()
              for path in paths}
    for command in plugins.commands(Kit()):
        target = app if not command.group else groups.get(command.group)
        owner = owners.get(command.path, "?")
        if target is None:
            raise PluginError(
                f"plugin {owner} adds the command {command.path!r} to a group lemon does not "
                f"have; use one of {', '.join(sorted(groups))} (or '' for 'lemon NAME')")
        if command.name in _names(target):
            if _added_earlier(target, command.name, command.path):
                continue  # added by an earlier run in this process
            raise PluginError(
                f"plugin {owner} adds 'lemon {command.path}', which is one of lemon's own "
                f"commands; rename it, or disable the plugin with LEMON_DISABLE_PLUGINS={owner}")
        target.command(command.name, short_help=command.short_help or None)(command.callback)
        setattr(command.callback, _MARK, {*getattr(command.callback, _MARK, ()), command.path})
        added.append(command.path)
    return added


__all__ = ["GROUP", "Kit", "add_commands", "wanted"]
