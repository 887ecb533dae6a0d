"""``lemon mcp …``."""

from __future__ import annotations

import typer

app = typer.Typer(help="Manage mcp.", no_args_is_help=True, rich_markup_mode=None)
