"""The ``lemon skill`` command group: modules of ``lemon_core.cli`` register commands on ``app``
(``skill`` lists and switches, ``skill_install`` installs, ``skill_audit`` audits, …) and
:mod:`lemon_core.cli` imports them all."""

from __future__ import annotations

import typer

app = typer.Typer(help="Discover, check and manage skills.", no_args_is_help=True,
                  rich_markup_mode=None)
