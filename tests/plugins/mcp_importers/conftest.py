"""Fixtures of the importer tests: see :mod:`tests.plugins.mcp_importers.workspace`."""

from tests.plugins.mcp_importers.workspace import builtin_plugins, ws

__all__ = ["builtin_plugins", "ws"]
