"""One refresh of a cache slot's tokens at a time, across processes.

With rotation a refresh token works once. Two processes refreshing the same slot at once would
both send it; the authorization server would refuse the second, which would then drop the
tokens (and acquire new ones, or ask for a login), and whichever wrote last would decide what
the cache holds. So a refresh holds the slot file's sibling lock directory (lemon's
:func:`lemon_core.fsio.write.file_lock`) from re-reading the slot to storing the answer, and a
process that had to wait re-reads the slot and uses the tokens stored meanwhile instead of
refreshing again (:mod:`.providers`). A memory-only slot (no file) needs no lock.

The lock is held for one token request, which :mod:`.limits` bounds to half the entry's
``timeout_ms``; a waiter gives up after the whole ``timeout_ms`` (:func:`wait_for`), which is
as long as the MCP request needing the token waits anyway. A busy or stale lock is the fixed kind ``auth_cache`` with the lock's
own message (it names lemon's lock directory and how to clear a stale one, nothing else).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from lemon_core.mcp.client.oauth.errors import OAuthError
from lemon_core.mcp.client.oauth.store import CacheFile


def wait_for(request_timeout_s: float) -> float:
    """How long to wait for another process's refresh (see the module docstring)."""
    return request_timeout_s


@asynccontextmanager
async def refresh_lock(cache: CacheFile, wait_s: float) -> AsyncIterator[None]:
    """Hold ``cache``'s slot for a refresh (see the module docstring)."""
    if cache.path is None:
        yield
        return
    import anyio

    from lemon_core.errors import BusyError
    from lemon_core.fsio.write import file_lock

    cache.make_folder()
    lock = file_lock(cache.path, timeout=wait_s)
    held = False

    def take() -> None:  # in a worker thread: file_lock waits by sleeping
        nonlocal held
        lock.__enter__()
        held = True

    try:
        await anyio.to_thread.run_sync(take)
    except BusyError as exc:
        raise OAuthError(cache.name, "auth_cache", str(exc)) from None
    except BaseException:
        if held:  # cancelled while the thread took it: give it back
            lock.__exit__(None, None, None)
        raise
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


__all__ = ["refresh_lock", "wait_for"]
