"""Fixtures of the import-host tests (the importer workspace); fixtures for lemon's own MCP
files live in ``support.py``."""

from tests.plugins.mcp_importers.workspace import builtin_plugins, ws

__all__ = ["builtin_plugins", "ws"]
