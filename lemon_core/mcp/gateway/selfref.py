"""A gateway never serves itself: recognising an entry that runs ``lemon mcp serve``.

A user who registered ``lemon mcp serve`` in ``.cursor/mcp.json`` (or any file lemon imports)
puts the gateway into its own effective set; connecting to it would start a gateway that
starts a gateway, without end. :func:`self_reason` names such an entry: a stdio command, or
any word of its argument vector, whose file name is ``lemon`` followed by ``mcp serve`` (so
``uvx --from lemon-core lemon mcp serve`` and ``/venv/bin/lemon mcp serve`` are both seen).
"""

from __future__ import annotations

import os

from lemon_core.models import McpServer

#: The status reason of a skipped self-entry (fixed: never the command or its arguments).
SELF_REASON = ("skipped: this entry runs 'lemon mcp serve' itself, and a gateway never "
               "serves itself (remove the entry, or disable it with 'lemon mcp disable NAME')")
_NAMES = frozenset({"lemon", "lemon.exe"})


def runs_gateway(server: McpServer) -> bool:
    if server.transport != "stdio" or not server.command:
        return False
    words = [server.command, *server.args]
    for i, word in enumerate(words):
        base = os.path.basename(word.replace("\\", "/")).lower()
        if base in _NAMES and words[i + 1:i + 3] == ["mcp", "serve"]:
            return True
    return False


def self_reason(server: McpServer) -> str | None:
    """The reason to skip ``server`` (it runs a gateway), or None to connect it."""
    return SELF_REASON if runs_gateway(server) else None


__all__ = ["SELF_REASON", "runs_gateway", "self_reason"]
