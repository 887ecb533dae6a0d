"""lemon: manage AI coding agents' skills and MCP servers.

The library API lives in :mod:`lemon_core.skills.api` (skills) and :mod:`lemon_core.mcp`
(MCP servers); plugin authors need :data:`hookimpl` and the contract in
:mod:`lemon_core.hookspecs`.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "hookimpl"]


def __getattr__(name: str) -> Any:
    # Deferred so that ``import lemon_core`` (and ``lemon --help``) does not import pluggy.
    if name == "hookimpl":
        from lemon_core.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module 'lemon_core' has no attribute {name!r}")
