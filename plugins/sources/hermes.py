"""The ``hermes`` skill source (being built: issue 8). Registers nothing yet."""

from __future__ import annotations

from lemon_core import hookimpl


@hookimpl
def lemon_register_sources(register):  # type: ignore[no-untyped-def]
    """Registers nothing until the source lands."""
