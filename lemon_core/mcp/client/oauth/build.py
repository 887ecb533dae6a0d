"""The ``httpx2.Auth`` for one configured entry: :func:`auth_for`.

An ``http`` entry with an ``oauth`` block gets one of the SDK providers of :mod:`.providers`
over its cache slot; any other entry gets None (no authentication beyond its headers). The
SDK's OAuth loggers are silenced here: their messages may quote an authorization server's
answer, and lemon never prints that.
"""

from __future__ import annotations

import logging
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.mcp.client.oauth.settings import PKCE, settings_for
from lemon_core.mcp.client.oauth.storage import SlotStorage
from lemon_core.mcp.client.oauth.store import CacheFile
from lemon_core.models import McpServer


def _quiet_sdk_loggers() -> None:
    for name in ("mcp.client.auth", "mcp.client.auth.oauth2", "mcp.client.auth.utils"):
        logger = logging.getLogger(name)
        if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
            logger.addHandler(logging.NullHandler())
        logger.propagate = False


def auth_for(server: McpServer, ctx: LemonContext, *,
             request_timeout_s: float = 10.0) -> Any | None:
    """The OAuth provider for ``server``, or None when it has no ``oauth`` block
    (``request_timeout_s``: how long the entry's MCP requests wait, which bounds how long a
    refresh waits for another process's). Raises :class:`~.errors.OAuthError` for an
    unusable block or a refused cache file."""
    settings = settings_for(server, ctx)
    if settings is None:
        return None
    from lemon_core.mcp.client.oauth.providers import CredentialsProvider, PkceProvider
    from lemon_core.mcp.client.oauth.refresh_lock import wait_for

    _quiet_sdk_loggers()
    storage = SlotStorage(CacheFile(settings, ctx), refresh_wait_s=wait_for(request_timeout_s))
    if settings.flow == PKCE:
        return PkceProvider(settings, storage)
    return CredentialsProvider(settings, storage)


__all__ = ["auth_for"]
