"""The OAuth token cache: one private JSON file per cache slot, or memory only.

Files live in ``<agent dir>/mcp-oauth/`` (made 0700), each written atomically with mode 0600.
A cache file that is not a regular file (a symbolic link, a FIFO, a folder) or that its group
or other users may read or write is refused with an error saying how to fix it; it is never
read. A record holds the tokens, their absolute expiry and the authorization-server metadata
discovered with them (so a new process refreshes at the right token endpoint before its first
MCP request). Nothing here prints or logs a token.

With ``persist_oauth_tokens: false`` (or no usable agent dir) records stay in this process's
memory: they survive reconnects, not restarts.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from lemon_core.context import LemonContext
from lemon_core.mcp.client.oauth.errors import OAuthError
from lemon_core.mcp.client.oauth.settings import OAuthSettings, slot_file_name
from lemon_core.text import escape

CACHE_FOLDER = "mcp-oauth"
MAX_CACHE_BYTES = 256 * 1024
RECORD_VERSION = 1

#: Memory-only records, by slot (process-wide: a reconnect finds them again).
_MEMORY: dict[str, dict[str, Any]] = {}


def cache_dir(ctx: LemonContext) -> Path | None:
    agent = ctx.usable_agent_dir
    return None if agent is None else agent / CACHE_FOLDER


class CacheFile:
    """The cache file of one slot (``path`` None: memory only)."""

    def __init__(self, settings: OAuthSettings, ctx: LemonContext) -> None:
        folder = cache_dir(ctx) if settings.persist else None
        self.name = settings.server
        self.slot = settings.slot
        self.path = None if folder is None else folder / slot_file_name(settings.slot)

    def _refuse(self, why: str) -> OAuthError:
        return OAuthError(self.name, "auth_cache",
                          f"the OAuth token cache {escape(str(self.path))} {why}; delete it "
                          f"(or run 'lemon mcp logout {self.name}') and log in again")

    def load(self) -> dict[str, Any] | None:
        if self.path is None:
            return _MEMORY.get(self.slot)
        from lemon_core.fsio.read import NotRegular, open_regular, read_up_to

        try:
            fd, info = open_regular(self.path, nofollow=True)
        except FileNotFoundError:
            return None
        except NotRegular:
            raise self._refuse("is not a regular file") from None
        except OSError:
            raise self._refuse("cannot be opened (is it a symbolic link?)") from None
        try:
            if info.st_mode & 0o077:
                raise self._refuse(f"is readable or writable by other users (mode "
                                   f"{stat.S_IMODE(info.st_mode):04o}, lemon writes 0600)")
            if info.st_uid != os.getuid():
                raise self._refuse("belongs to another user")
            data = read_up_to(fd, MAX_CACHE_BYTES + 1, info.st_size)
        finally:
            os.close(fd)
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise self._refuse("is not valid JSON") from None
        if not isinstance(record, dict) or record.get("version") != RECORD_VERSION:
            return None
        return record

    def save(self, record: dict[str, Any]) -> None:
        record = {"version": RECORD_VERSION, **record}
        if self.path is None:
            _MEMORY[self.slot] = record
            return
        from lemon_core.fsio.write import atomic_write_bytes

        self.make_folder()
        atomic_write_bytes(self.path, json.dumps(record).encode("utf-8"), mode=0o600)

    def make_folder(self) -> None:
        """Create the cache folder, private (0700)."""
        if self.path is None:
            return
        folder = self.path.parent
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode):
            raise self._refuse("has a parent that is not a folder")
        if info.st_mode & 0o077:
            os.chmod(folder, 0o700)

    def delete(self) -> bool:
        """Forget the slot's record; True when there was one."""
        if self.path is None:
            return _MEMORY.pop(self.slot, None) is not None
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            return _MEMORY.pop(self.slot, None) is not None
        return True


def forget(settings: OAuthSettings, ctx: LemonContext) -> bool:
    """Delete the cached tokens of ``settings``'s slot, on disk and in memory."""
    in_memory = _MEMORY.pop(settings.slot, None) is not None
    return CacheFile(settings, ctx).delete() or in_memory


__all__ = ["CACHE_FOLDER", "CacheFile", "cache_dir", "forget"]
