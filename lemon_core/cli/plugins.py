"""``lemon plugins …``: what plugins are installed and which hooks they implement.

``lemon plugins list --json`` prints ``{"plugins": [...]}``; each plugin has the keys
``name`` (qualified, e.g. ``sources.git``), ``group`` (entry-point group), ``entry_point``
(its value, ``module[:attr]``), ``distribution``, ``version``, ``builtin`` (shipped in
lemon-core), ``hooks`` (sorted hook names), ``commands`` (the commands a command plugin adds,
``["skill hermes"]``) and ``observer`` (whether it implements an observer hook). Warnings go to
stderr in both modes. The text form adds, below the table, the commands plugins add and the
plugins that observe lemon's events.
"""

from __future__ import annotations

import typer

app = typer.Typer(help="Inspect lemon's plugins.", no_args_is_help=True, rich_markup_mode=None)

HEADERS = ["NAME", "GROUP", "ENTRY POINT", "DISTRIBUTION", "VERSION", "HOOKS"]


@app.command("list", short_help="List the loaded plugins and their hooks.")
def list_plugins(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List every loaded plugin: qualified name, group, entry point, distribution, version,
    hooks; then the commands plugins add and the plugins that observe lemon's events.
    Honours LEMON_DISABLE_PLUGINS and LEMON_BUILTIN_PLUGINS_ONLY."""
    from lemon_core.cli.output import emit_json, say, table, warn
    from lemon_core.cli.plugin_commands import Kit
    from lemon_core.hookspecs import OBSERVER_HOOKS
    from lemon_core.plugins import load_plugins

    plugins = load_plugins()
    for warning in plugins.warnings:
        warn(warning)
    infos = plugins.infos
    commands = plugins.command_owners(Kit())
    observers = [info.name for info in plugins.observers()]
    if as_json:
        emit_json({"plugins": [info.to_json() | {
            "commands": commands.get(info.name, []),
            "observer": any(hook in OBSERVER_HOOKS for hook in info.hooks)}
            for info in infos]})
        return
    if not infos:
        say("No plugins are loaded.")
        return
    rows = [
        [
            info.name,
            info.group,
            info.entry_point,
            info.distribution or "-",
            info.version or "-",
            ", ".join(info.hooks) or "-",
        ]
        for info in infos
    ]
    say(table(rows, HEADERS))
    added = [f"lemon {path} ({owner})" for owner, paths in sorted(commands.items())
             for path in paths]
    if added:
        say("", "Commands added by plugins: " + ", ".join(added))
    if observers:
        say("", "Plugins observing lemon's events: " + ", ".join(observers))
