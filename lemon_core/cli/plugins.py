"""``lemon plugins …``: what plugins are installed and which hooks they implement.

``lemon plugins list --json`` prints ``{"plugins": [...]}``; each plugin has the keys
``name`` (qualified, e.g. ``sources.git``), ``group`` (entry-point group), ``entry_point``
(its value, ``module[:attr]``), ``distribution``, ``version``, ``builtin`` (shipped in
lemon-core) and ``hooks`` (sorted hook names). Warnings go to stderr in both modes.
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
    hooks. Honours LEMON_DISABLE_PLUGINS and LEMON_BUILTIN_PLUGINS_ONLY."""
    from lemon_core.cli.output import emit_json, say, table, warn
    from lemon_core.plugins import load_plugins

    plugins = load_plugins()
    for warning in plugins.warnings:
        warn(warning)
    infos = plugins.infos
    if as_json:
        emit_json({"plugins": [info.to_json() for info in infos]})
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
