"""The ``mcp`` SDK, imported only when a server or client actually runs.

``mcp`` is an optional extra of lemon-core (``pip install 'lemon-core[mcp]'``); importing it
costs about a second, so nothing imports it at module level. :func:`require_sdk` imports it and
turns a missing or too old SDK into a :class:`McpSdkMissing` that says how to install it.
"""

from __future__ import annotations

from lemon_core.errors import LemonError

INSTALL_HINT = "pip install 'lemon-core[mcp]'"


class McpSdkMissing(LemonError):
    """The ``mcp`` SDK (2.x) is not installed."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"the MCP Python SDK (mcp 2.x) is not installed ({detail}); install it "
                         f"with: {INSTALL_HINT}")


def require_sdk() -> None:
    """Import the SDK parts lemon uses, or raise :class:`McpSdkMissing`."""
    try:
        import mcp.server.lowlevel  # noqa: F401
        import mcp_types  # noqa: F401
    except ImportError as exc:
        raise McpSdkMissing(f"cannot import {exc.name or 'mcp'}") from None


__all__ = ["INSTALL_HINT", "McpSdkMissing", "require_sdk"]
