"""What MCP importer plugins build on (public API, like :mod:`lemon_core.protocols`).

- :mod:`~lemon_core.mcp.importer_kit.files`: :class:`FileImporter`, a base class for importers
  that read a fixed list of files, and the helpers for the common ``mcpServers`` shape.
- :mod:`~lemon_core.mcp.importer_kit.normalise`: from a provider's raw entry to an
  :class:`~lemon_core.models.McpServer`, with the rules every provider shares.
- :mod:`~lemon_core.mcp.importer_kit.expand`: ``${VAR}`` expansion and OpenCode substitution.
- :mod:`~lemon_core.mcp.importer_kit.jsonc`: JSON with comments and trailing commas.

The built-in importers (``lemon_plugins.mcp_importers``) use nothing else of lemon's internals;
an import-linter contract keeps it so.
"""
