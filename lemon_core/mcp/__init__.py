"""MCP servers.

- lemon's own configuration: :mod:`~lemon_core.mcp.config` (files and ``LEMON_MCP_SERVERS``),
  :mod:`~lemon_core.mcp.schema` (one entry), :mod:`~lemon_core.mcp.names`,
  :mod:`~lemon_core.mcp.spec` and :mod:`~lemon_core.mcp.manage` (``lemon mcp add`` and friends),
  :mod:`~lemon_core.mcp.lenient` (entry-by-entry reading for the effective set).
- importing other tools' servers: :mod:`~lemon_core.mcp.importing` (the host) and
  :mod:`lemon_core.mcp.importer_kit` (what importer plugins build on; public).
- :mod:`~lemon_core.mcp.effective` (every source merged) and :mod:`~lemon_core.mcp.views` (JSON).
- :mod:`lemon_core.mcp.client` (the SDK client), :mod:`lemon_core.mcp.runtime` (the tool host
  for embedders) and :mod:`lemon_core.mcp.servers` (the lazy skills server, the gateway).
- for embedders building a configuration in code: :func:`validate_servers`
  (:mod:`~lemon_core.mcp.validate`) and :class:`McpAppConfig` (:mod:`~lemon_core.mcp.appconfig`).
"""

from typing import Any

__all__ = ["McpAppConfig", "validate_servers"]


def __getattr__(name: str) -> Any:  # deferred: importing lemon_core.mcp stays cheap
    if name == "validate_servers":
        from lemon_core.mcp.validate import validate_servers

        return validate_servers
    if name == "McpAppConfig":
        from lemon_core.mcp.appconfig import McpAppConfig

        return McpAppConfig
    raise AttributeError(name)
