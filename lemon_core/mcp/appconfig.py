"""The application configuration: MCP servers and discovery switches given in code.

An embedder that builds its configuration in Python hands it to the tool host
(``McpHost(ctx, config=McpAppConfig(...))``) instead of setting environment variables. Each
field stands where the matching variable stands (the spec's ``:mcp_servers``,
``:mcp_disabled``, ``:mcp_external_discovery``, ``:mcp_external_user_discovery`` and
``:mcp_discovery_home``):

- ``mcp_servers`` are entries shaped like those of lemon's ``mcp.json`` (dicts) or
  :class:`~lemon_core.models.McpServer` objects, checked by
  :func:`lemon_core.mcp.validate.validate_servers`. They join the effective set right after
  ``LEMON_MCP_SERVERS`` (project entries override global entries, which override
  environment and then application entries, which override servers imported from other
  tools); an invalid entry is reported (provider ``app``) and left out. They are the user's
  own servers: no trust record is asked for them.
- each switch applies when its environment variable is unset (a variable that is set wins):
  ``mcp_disabled`` (``LEMON_MCP_DISABLED``), ``mcp_external_discovery``
  (``LEMON_MCP_EXTERNAL_DISCOVERY``), ``mcp_external_user_discovery``
  (``LEMON_MCP_EXTERNAL_USER_DISCOVERY``: True for every provider, or provider names) and
  ``mcp_discovery_home`` (``LEMON_MCP_DISCOVERY_HOME``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext


def _user_discovery(value: bool | str | Iterable[str] | None) -> str | None:
    if value is None or isinstance(value, bool):
        return None if value is None else ("1" if value else "0")
    if isinstance(value, str):
        return value
    return ",".join(value)


def _flag(value: bool | None) -> str | None:
    return None if value is None else ("1" if value else "0")


@attrs.frozen
class McpAppConfig:
    mcp_servers: tuple[Any, ...] = attrs.field(default=(), converter=tuple)
    mcp_disabled: bool | None = None
    mcp_external_discovery: bool | None = None
    #: True (every provider's user files), False, or provider names (``("claude", "codex")``)
    mcp_external_user_discovery: bool | str | tuple[str, ...] | None = attrs.field(
        default=None, converter=lambda v: tuple(v) if isinstance(v, list) else v)
    mcp_discovery_home: str | Path | None = None

    def variables(self) -> dict[str, str]:
        """The environment variables these switches amount to (only those given)."""
        home = None if self.mcp_discovery_home is None else str(self.mcp_discovery_home)
        pairs = {"LEMON_MCP_DISABLED": _flag(self.mcp_disabled),
                 "LEMON_MCP_EXTERNAL_DISCOVERY": _flag(self.mcp_external_discovery),
                 "LEMON_MCP_EXTERNAL_USER_DISCOVERY":
                     _user_discovery(self.mcp_external_user_discovery),
                 "LEMON_MCP_DISCOVERY_HOME": home}
        return {key: value for key, value in pairs.items() if value is not None}

    def context(self, ctx: LemonContext) -> LemonContext:
        """``ctx`` with each switch whose variable ``ctx`` leaves unset taken from here."""
        unset = {key: value for key, value in self.variables().items()
                 if ctx.getenv(key) is None}
        return ctx.evolve(env={**ctx.env, **unset}) if unset else ctx

    def servers(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """``(valid servers, problems)`` of :attr:`mcp_servers`
        (:func:`~lemon_core.mcp.validate.validate_servers`)."""
        from lemon_core.mcp.validate import validate_servers

        return validate_servers(self.mcp_servers, prefix="mcp_servers")


__all__ = ["McpAppConfig"]
