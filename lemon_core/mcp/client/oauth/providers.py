"""The SDK's OAuth providers (``httpx2.Auth`` flows) as lemon uses them.

- :class:`CredentialsProvider`: the SDK's client-credentials provider (``client_secret_post``
  or ``client_secret_basic``).
- :class:`PkceProvider`: the SDK's authorization-code provider with PKCE for a public client
  whose id the entry names (no dynamic registration); the URL goes to the caller's authorizer
  (:mod:`.interactive`) and the code comes back through the localhost receiver.

Both resume from the cache slot: the stored expiry makes an expired access token refresh
(``grant_type=refresh_token``, storing a rotated refresh token, keeping the old one when none
is returned) before the first MCP request, at the token endpoint discovered last time; a 401
for a token the client still thought valid is answered by a refresh first, too. A refresh holds
the slot across processes (:mod:`.refresh_lock`) and first re-reads it: tokens another process
stored meanwhile are used instead of refreshing again with a refresh token rotation has made
useless. The flow's own requests (metadata, token) are marked for :mod:`.limits`, which gives
each a deadline and a size cap. A
refused refresh drops the tokens and the SDK acquires new ones once (client credentials) or asks
for a login (PKCE). Every SDK OAuth failure becomes a fixed :class:`~.errors.OAuthError`; the
SDK's own messages (which may quote the authorization server) are never shown.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator
from typing import Any

from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

from lemon_core.mcp.client.errors import McpConnectionError
from lemon_core.mcp.client.oauth.errors import OAuthError
from lemon_core.mcp.client.oauth.interactive import current_authorizer
from lemon_core.mcp.client.oauth.limits import mark
from lemon_core.mcp.client.oauth.receiver import RedirectReceiver
from lemon_core.mcp.client.oauth.settings import OAuthSettings, loopback_redirect
from lemon_core.mcp.client.oauth.storage import SlotStorage


class _LemonFlow:
    """What both providers add to the SDK's: resume from the slot, fixed errors."""

    settings: OAuthSettings
    context: Any

    def _bind(self, settings: OAuthSettings) -> None:
        self.settings = settings
        self.context.storage.context = self.context

    def _restore(self) -> None:
        from mcp.shared.auth import OAuthMetadata, ProtectedResourceMetadata
        from pydantic import ValidationError

        record = self.context.storage.record
        context = self.context
        if context.current_tokens is not None:
            expires = record.get("expires_at")
            context.token_expiry_time = expires if isinstance(expires, int | float) else None
        try:
            if context.oauth_metadata is None and record.get("oauth_metadata"):
                context.oauth_metadata = OAuthMetadata.model_validate(record["oauth_metadata"])
            if context.protected_resource_metadata is None and record.get("resource_metadata"):
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    record["resource_metadata"])
        except ValidationError:
            context.oauth_metadata = context.protected_resource_metadata = None
        if context.auth_server_url is None and isinstance(record.get("auth_server_url"), str):
            context.auth_server_url = record["auth_server_url"]

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        self._restore()

    async def _perform_authorization(self) -> Any:
        """The SDK has just chosen the scope from the challenge and the metadata; the entry's
        configured scope is always requested too."""
        from mcp.client.auth.utils import union_scopes

        metadata = self.context.client_metadata
        metadata.scope = union_scopes(self.settings.scope, metadata.scope)
        return await super()._perform_authorization()  # type: ignore[misc]

    async def _handle_refresh_response(self, response: Any) -> bool:
        ok = await super()._handle_refresh_response(response)  # type: ignore[misc]
        if not ok:
            self.context.storage.drop_tokens()
        return ok

    async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        """The SDK's flow, every request of it other than the MCP request itself (metadata,
        token, the redirects followed for them) marked for :mod:`.limits`' bounds."""
        flow = super().async_auth_flow(request)  # type: ignore[misc]
        try:
            outgoing = await flow.__anext__()
            while True:
                if outgoing is not request:
                    mark(outgoing)
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        from mcp.client.auth import (
            OAuthFlowError,
            OAuthRegistrationError,
            OAuthTokenError,
        )
        from pydantic import ValidationError

        flow = None
        try:
            async with self.context.lock:  # expired: refresh before the SDK's flow runs
                if not self._initialized:  # type: ignore[has-type]
                    await self._initialize()
                if not self.context.is_token_valid() and self.context.can_refresh_token():
                    async with self.context.storage.refreshing():
                        if not self._take_stored_tokens() and self.context.can_refresh_token():
                            refresh = await self._refresh_token()  # type: ignore[attr-defined]
                            answer = yield refresh
                            if not await self._handle_refresh_response(answer):
                                self._initialized = False  # as the SDK: start again
            flow = super()._auth_flow(request)  # type: ignore[misc]
            refreshed = False
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if outgoing is request and response.status_code == 401 and not refreshed \
                        and self.context.can_refresh_token():
                    # the server rejected the access token: refresh first, and only when that
                    # fails let the SDK run its full flow (re-acquire, or ask for a login)
                    refreshed = True
                    rejected = self.context.current_tokens.access_token
                    async with self.context.storage.refreshing():
                        fresh = self._take_stored_tokens(rejected)
                        if not fresh and self.context.can_refresh_token():
                            refresh = await self._refresh_token()  # type: ignore[attr-defined]
                            answer = yield refresh
                            fresh = await self._handle_refresh_response(answer)
                    if fresh:
                        self._add_auth_header(request)  # type: ignore[attr-defined]
                        response = yield request
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except McpConnectionError:
            raise
        except (OAuthFlowError, OAuthTokenError, OAuthRegistrationError, ValidationError,
                ValueError):
            raise OAuthError(self.settings.server, "auth_failed") from None
        finally:
            if flow is not None:
                await flow.aclose()

    def _take_stored_tokens(self, rejected: str | None = None) -> bool:
        """With the slot held for a refresh: adopt the tokens another process stored since
        this one read them (the newest refresh token is the only one still good after a
        rotation). True when they hold an access token to use now instead of refreshing."""
        tokens, expires = self.context.storage.reread()
        current = self.context.current_tokens
        if tokens is None or current is not None and \
                (tokens.access_token, tokens.refresh_token) == \
                (current.access_token, current.refresh_token):
            return False  # nothing newer: this process refreshes
        self.context.current_tokens = tokens
        self.context.token_expiry_time = expires
        return self.context.is_token_valid() and tokens.access_token != rejected


class CredentialsProvider(_LemonFlow, ClientCredentialsOAuthProvider):
    def __init__(self, settings: OAuthSettings, storage: SlotStorage) -> None:
        import warnings

        from mcp.shared.exceptions import MCPDeprecationWarning

        with warnings.catch_warnings():  # no issuer configured: whatever discovery finds
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            super().__init__(settings.url, storage, settings.client_id,
                             settings.client_secret or "",
                             token_endpoint_auth_method=settings.token_auth_method,  # type: ignore[arg-type]
                             scope=settings.scope, issuer=settings.issuer)
        self._bind(settings)


class PkceProvider(_LemonFlow, OAuthClientProvider):
    def __init__(self, settings: OAuthSettings, storage: SlotStorage) -> None:
        from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata

        method = settings.token_auth_method if settings.client_secret else "none"
        fields: dict[str, Any] = {
            "redirect_uris": [settings.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"], "token_endpoint_auth_method": method,
            "scope": settings.scope}
        storage.client_info = OAuthClientInformationFull(
            client_id=settings.client_id, client_secret=settings.client_secret, **fields)
        super().__init__(settings.url, OAuthClientMetadata(**fields), storage,
                         redirect_handler=self._hand_out, callback_handler=self._receive)
        self._bind(settings)
        self._receiver: RedirectReceiver | None = None

    async def _hand_out(self, url: str) -> None:
        """Start the receiver, then give the authorization URL to the caller's authorizer."""
        authorizer = current_authorizer()
        name = self.settings.server
        if authorizer is None:
            raise OAuthError(name, "auth_required")
        host, port, path = loopback_redirect(name, self.settings.redirect_uri or "")
        receiver = RedirectReceiver(host, port, path)
        try:
            receiver.start()
        except OSError:
            raise OAuthError(name, "auth_config",
                             f"cannot listen on {host} port {port} for the redirect (is another "
                             "login running?)") from None
        self._receiver = receiver
        try:
            shown = authorizer(url)
            if inspect.isawaitable(shown):
                await shown
        except BaseException:
            self._close_receiver()
            raise

    async def _receive(self) -> Any:
        import anyio
        from mcp.shared.auth import AuthorizationCodeResult

        receiver, name = self._receiver, self.settings.server
        if receiver is None:
            raise OAuthError(name, "auth_required")
        seconds = self.settings.authorization_timeout
        try:
            with anyio.fail_after(seconds):
                params = await receiver.wait()
        except TimeoutError:
            raise OAuthError(name, "auth_timeout", f"{seconds:g}") from None
        finally:
            self._close_receiver()
        if not params.get("code"):
            raise OAuthError(name, "auth_failed")
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"),
                                       iss=params.get("iss"))

    def _close_receiver(self) -> None:
        receiver, self._receiver = self._receiver, None
        if receiver is not None:
            receiver.close()


__all__ = ["CredentialsProvider", "PkceProvider"]
