"""``lemon skill …``."""

from __future__ import annotations

import typer

app = typer.Typer(help="Manage skill.", no_args_is_help=True, rich_markup_mode=None)
