"""The private cache folder, and the key that seals what lemon writes in it.

Every cache file lemon writes starts with a MAC (HMAC-SHA256) of its content under a random
per-user key kept in ``<cache folder>/key`` (0600). A file whose MAC does not verify was not
written by this user's lemon, or was changed since: it is never parsed, and the cache is rebuilt.
So a cache file can hold only what lemon itself computed from the files it describes, and the
freshness checks decide whether that is still current.

The folder is private: created 0700, tightened to 0700 when it is wider, and not used at all
when it is not a folder of this user's. Only the cache folder and, when missing, the folder just
above it (``~/.cache``) are ever created, and only when the folder above that one exists: a
missing or mistyped home is never created.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from pathlib import Path

from lemon_core.fsio import FileProblem, atomic_write_bytes, read_bytes

KEY_FILE = "key"
KEY_BYTES = 32
_MAC_HEX = 64
_POSIX = hasattr(os, "geteuid")


def _ours(info: os.stat_result) -> bool:
    return not _POSIX or info.st_uid == os.geteuid()


def private_dir(path: Path, *, create: bool = False) -> bool:
    """True when ``path`` is a folder of this user's, readable by this user alone.

    A wider mode is tightened to 0700; with ``create``, a missing folder is made (0700), and
    so is its parent when the parent's parent exists (never more).
    """
    if create:
        for folder in (path.parent, path):
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
            except OSError:
                return False
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    if not stat.S_ISDIR(info.st_mode) or not _ours(info):
        return False
    if _POSIX and stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(path, 0o700)
        except OSError:
            return False
    return True


def read_key(cache_dir: Path) -> bytes | None:
    """The sealing key, or None when there is none usable (missing, short, shared or foreign:
    a key others could read seals nothing)."""
    path = cache_dir / KEY_FILE
    try:
        info = os.stat(path)
        if not _ours(info) or (_POSIX and stat.S_IMODE(info.st_mode) & 0o077):
            return None
        key = read_bytes(path, KEY_BYTES)
    except (OSError, ValueError, FileProblem):
        return None
    return key if key is not None and len(key) == KEY_BYTES else None


def ensure_key(cache_dir: Path) -> bytes | None:
    """The sealing key, made (random, 0600) when there is none usable; None when it cannot be.

    Two processes making one at once each write theirs; the last rename wins and a file sealed
    with the other key is rebuilt once.
    """
    key = read_key(cache_dir)
    if key is not None:
        return key
    try:
        atomic_write_bytes(cache_dir / KEY_FILE, os.urandom(KEY_BYTES), mode=0o600)
    except OSError:
        return None
    return read_key(cache_dir)


def _mac(key: bytes, payload: bytes) -> bytes:
    return hmac.digest(key, payload, hashlib.sha256).hex().encode("ascii")


def seal(key: bytes, magic: bytes, payload: bytes) -> bytes:
    """``magic`` and the MAC of ``payload`` on the first line, then ``payload``."""
    return b"%s %s\n%s" % (magic, _mac(key, payload), payload)


def unseal(key: bytes, magic: bytes, data: bytes) -> bytes | None:
    """The payload of a file :func:`seal` wrote with this key and magic, else None."""
    start = len(magic) + 1
    end = start + _MAC_HEX
    if len(data) <= end or data[:start] != magic + b" " or data[end:end + 1] != b"\n":
        return None
    payload = data[end + 1:]
    if not hmac.compare_digest(data[start:end], _mac(key, payload)):
        return None
    return payload


__all__ = ["KEY_BYTES", "KEY_FILE", "ensure_key", "private_dir", "read_key", "seal", "unseal"]
