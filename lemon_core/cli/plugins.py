"""``lemon plugins …``: what plugins are installed and which hooks they implement."""

from __future__ import annotations

import typer

app = typer.Typer(help="Inspect lemon's plugins.", no_args_is_help=True, rich_markup_mode=None)


@app.command("list")
def list_plugins(
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List every loaded plugin: qualified name, group, entry point, distribution, hooks."""
    from lemon_core.cli.output import emit_json, table
    from lemon_core.plugins import load_plugins, plugin_infos

    infos = plugin_infos(load_plugins())
    if as_json:
        emit_json(
            {
                "plugins": [
                    {
                        "name": info.name,
                        "group": info.group,
                        "entry_point": info.entry_point,
                        "distribution": info.distribution,
                        "version": info.version,
                        "builtin": info.builtin,
                        "hooks": list(info.hooks),
                    }
                    for info in infos
                ]
            }
        )
        return
    if not infos:
        typer.echo("No plugins are loaded.")
        return
    rows = [
        [
            info.name,
            info.group,
            f"{info.distribution or '-'} {info.version or ''}".strip(),
            ", ".join(info.hooks) or "-",
        ]
        for info in infos
    ]
    typer.echo(table(rows, ["NAME", "GROUP", "DISTRIBUTION", "HOOKS"]))
