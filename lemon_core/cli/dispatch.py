"""Build only the command a ``lemon`` run names.

Typer turns its whole tree of commands into Click objects on every run (each command's
signature read, each parameter converted): about 15 ms of CPU for lemon's ~40 commands, of
which a run uses one. :func:`app_for` hands Typer a copy of the app that holds only the group
and command ``lemon GROUP COMMAND …`` names, so only that one is built. Anything else (no
command yet, an option first, a name that is no command, shell completion) gets the full app,
so help listings, "No such command" errors and completion are exactly as before; the named
command's own help, options and errors do not depend on its siblings.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Sequence
from typing import Any

import typer
from typer.main import get_command_name

from lemon_core.plain import plain

#: The variable Typer's completion scripts set (``_<PROG>_COMPLETE``).
COMPLETE_ENV = "_LEMON_COMPLETE"


def command_name(info: typer.models.CommandInfo) -> str | None:
    """The name a registered command is called by (Typer's own rule when none was given)."""
    if info.name:
        return info.name
    callback = info.callback
    return get_command_name(callback.__name__) if callback is not None else None


def app_for(app: typer.Typer, argv: Sequence[str]) -> typer.Typer:
    """``app`` pruned to the one command ``argv`` names, or ``app`` itself."""
    if len(argv) < 2 or os.environ.get(COMPLETE_ENV) or plain("dispatch"):
        return app
    try:
        if _find(app, argv[0], argv[1]) is None:
            return app
        return _pruned(app, argv[0], argv[1])
    except (AttributeError, TypeError):  # a Typer whose lists are not these: build them all
        return app


def _find(app: typer.Typer, group_name: str, name: str) -> tuple[Any, Any] | None:
    """(group, command) when ``lemon GROUP NAME`` is exactly one command, else None."""
    group = next((g for g in app.registered_groups if g.name == group_name), None)
    sub = group.typer_instance if group is not None else None
    if sub is None or any(g.name == name for g in sub.registered_groups):
        return None
    matches = [c for c in sub.registered_commands if command_name(c) == name]
    return (group, matches[0]) if len(matches) == 1 else None


@functools.cache
def _pruned(app: typer.Typer, group_name: str, name: str) -> typer.Typer:
    """A copy of ``app`` holding only that group with only that command; one copy per
    command, kept, so a process that runs several commands (tests, an embedder) gets the same
    object for the same command. ``app`` itself is not changed."""
    group, command = _find(app, group_name, name)  # type: ignore[misc]
    only_sub = copy.copy(group.typer_instance)
    only_sub.registered_commands = [command]
    only_sub.registered_groups = []
    only_group = copy.copy(group)
    only_group.typer_instance = only_sub
    pruned = copy.copy(app)
    pruned.registered_groups = [only_group]
    pruned.registered_commands = []
    return pruned


__all__ = ["app_for", "command_name"]
