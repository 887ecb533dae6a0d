"""OAuth for Streamable HTTP entries, through the SDK's client auth (``mcp.client.auth``).

One job per module: :mod:`.settings` (the entry's ``oauth`` block resolved), :mod:`.store`
(the private token cache file, or memory), :mod:`.storage` (the SDK's ``TokenStorage`` over a
slot), :mod:`.refresh_lock` (one refresh of a slot at a time, across processes),
:mod:`.providers` (the SDK providers with lemon's resume and fixed errors), :mod:`.limits`
(a deadline and a size cap for each metadata and token request), :mod:`.receiver` (the
localhost redirect receiver), :mod:`.interactive` (who gets an authorization URL),
:mod:`.build` (the provider for an entry). ``login``/``logout`` live beside the package, in
:mod:`lemon_core.mcp.client.oauth_login` (they open connections, which use this package).
See docs/mcp-oauth.md.
"""

from __future__ import annotations

from lemon_core.mcp.client.oauth.build import auth_for
from lemon_core.mcp.client.oauth.errors import OAuthError
from lemon_core.mcp.client.oauth.interactive import authorize_with

__all__ = ["OAuthError", "auth_for", "authorize_with"]
