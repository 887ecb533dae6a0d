"""The SDK's ``TokenStorage`` over one cache slot (:class:`~.store.CacheFile`).

Besides the tokens it records what the SDK does not persist: the tokens' absolute expiry and
the authorization-server and protected-resource metadata discovered with them, read from the
provider's context at the moment the SDK stores new tokens. The client registration is fixed by
the entry (lemon never registers clients dynamically), so it is never stored.
"""

from __future__ import annotations

from typing import Any

from lemon_core.mcp.client.oauth.store import CacheFile


def _dump(model: Any) -> Any:
    return None if model is None else model.model_dump(mode="json", exclude_none=True)


class SlotStorage:
    def __init__(self, cache: CacheFile, client_info: Any = None, *,
                 refresh_wait_s: float = 10.0) -> None:
        self.cache = cache
        self.record: dict[str, Any] = cache.load() or {}
        self.client_info = client_info
        #: how long a refresh waits for another process refreshing this slot
        self.refresh_wait_s = refresh_wait_s
        #: The provider's ``OAuthContext`` (set by the provider).
        self.context: Any = None

    async def get_tokens(self) -> Any:
        return self._tokens()

    def _tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken
        from pydantic import ValidationError

        raw = self.record.get("tokens")
        if not isinstance(raw, dict):
            return None
        try:
            return OAuthToken.model_validate(raw)
        except ValidationError:
            return None

    def reread(self) -> tuple[Any, float | None]:
        """The slot as it is now (another process may have stored newer tokens): its tokens
        (or None) and their absolute expiry."""
        self.record = self.cache.load() or {}
        expires = self.record.get("expires_at")
        return self._tokens(), expires if isinstance(expires, int | float) else None

    async def set_tokens(self, tokens: Any) -> None:
        context = self.context
        record: dict[str, Any] = {"server": self.cache.name, "tokens": _dump(tokens)}
        if context is not None:
            record.update(expires_at=context.token_expiry_time,
                          oauth_metadata=_dump(context.oauth_metadata),
                          resource_metadata=_dump(context.protected_resource_metadata),
                          auth_server_url=context.auth_server_url)
        self.record = record
        self.cache.save(record)

    def drop_tokens(self) -> None:
        """Forget the tokens (a refresh was refused), keeping the discovered metadata."""
        if "tokens" in self.record:
            self.record = {k: v for k, v in self.record.items()
                           if k not in ("tokens", "expires_at")}
            self.cache.save(self.record)

    def refreshing(self) -> Any:
        """Hold the slot for one refresh, across processes (:mod:`.refresh_lock`)."""
        from lemon_core.mcp.client.oauth.refresh_lock import refresh_lock

        return refresh_lock(self.cache, self.refresh_wait_s)

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


__all__ = ["SlotStorage"]
