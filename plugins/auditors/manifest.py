"""The ``manifest`` auditor family (being built: issue 9). Registers nothing yet."""

from __future__ import annotations

from lemon_core import hookimpl


@hookimpl
def lemon_register_auditors(register):  # type: ignore[no-untyped-def]
    """Registers nothing until the auditor lands."""
