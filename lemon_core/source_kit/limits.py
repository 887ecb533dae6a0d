"""Caps on what a git fetch may bring in, checked before anything is unpacked in memory.

A pack is compressed: a few kilobytes on the wire can inflate to gigabytes. :func:`check_pack`
walks the pack's object headers and inflates each object in bounded chunks, discarding the
output, so a pack that would inflate past :class:`FetchLimits` is refused before dulwich
builds its objects. The caps are generous (a tree of several skills with its history fits);
the install's own safe-tree checks then hold each skill to the skill caps.
"""

from __future__ import annotations

import zlib
from typing import IO

import attrs

from lemon_core.source_kit.transport import GitSourceError

_CHUNK = 64 * 1024
_OFS_DELTA, _REF_DELTA = 6, 7


@attrs.frozen
class FetchLimits:
    """``max_pack_bytes`` on the wire, ``max_objects`` in one pack, ``max_object_bytes``
    inflated per object, ``max_total_bytes`` inflated in all, ``max_entries`` written."""

    max_pack_bytes: int = 256 * 1024 * 1024
    max_objects: int = 200_000
    max_object_bytes: int = 64 * 1024 * 1024
    max_total_bytes: int = 512 * 1024 * 1024
    max_entries: int = 20_000


DEFAULT_LIMITS = FetchLimits()


class FetchTooLarge(GitSourceError):
    """The repository (or the part fetched) is over one of the :class:`FetchLimits`."""


def size_text(n: int) -> str:
    """``n`` bytes as KiB below one MiB, else MiB."""
    return f"{n // 1024} KiB" if n < 1024 * 1024 else f"{n / (1024 * 1024):.0f} MiB"


class _Reader:
    def __init__(self, f: IO[bytes]) -> None:
        self.f = f
        self.buf = b""

    def read(self, n: int) -> bytes:
        while len(self.buf) < n:
            more = self.f.read(max(_CHUNK, n - len(self.buf)))
            if not more:
                raise EOFError
            self.buf += more
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def byte(self) -> int:
        return self.read(1)[0]

    def inflate(self, keep: int, cap: int) -> tuple[int, bytes]:
        """Inflate one zlib stream: (bytes it inflates to, its first ``keep`` bytes);
        stops with FetchTooLarge past ``cap``."""
        d = zlib.decompressobj()
        data, self.buf = self.buf, b""
        total, head = 0, b""
        while True:
            out = d.decompress(data, _CHUNK)
            total += len(out)
            if len(head) < keep:
                head += out[: keep - len(head)]
            if total > cap:
                raise FetchTooLarge(f"an object of the repository inflates past {size_text(cap)}: "
                                    "refusing it")
            if d.eof:
                self.buf = d.unused_data
                return total, head
            data = d.unconsumed_tail
            if not data:
                data = self.f.read(_CHUNK)
                if not data:
                    raise EOFError


def varint(data: bytes, pos: int) -> tuple[int, int]:
    """The little-endian base-128 integer of a git delta header at ``pos``, and the position
    after it."""
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        shift += 7
        pos += 1
        if not byte & 0x80:
            break
    return value, pos


def check_pack(f: IO[bytes], limits: FetchLimits = DEFAULT_LIMITS, hash_len: int = 20) -> int:
    """Refuse the pack in ``f`` (read from its start) if it is over ``limits``; else the
    bytes its objects inflate to (as far as it could be read). A malformed or cut pack is left
    for dulwich to report; this only measures."""
    reader = _Reader(f)
    total = 0
    try:
        header = reader.read(12)
        if header[:4] != b"PACK":
            return 0
        count = int.from_bytes(header[8:12], "big")
        if count > limits.max_objects:
            raise FetchTooLarge(f"the repository sends {count:,} objects (over "
                                f"{limits.max_objects:,}): refusing it")
        for _ in range(count):
            byte = reader.byte()
            kind, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
            while byte & 0x80:
                byte = reader.byte()
                size |= (byte & 0x7F) << shift
                shift += 7
            if kind == _OFS_DELTA:
                while reader.byte() & 0x80:
                    pass
            elif kind == _REF_DELTA:
                reader.read(hash_len)
            delta = kind in (_OFS_DELTA, _REF_DELTA)
            inflated, head = reader.inflate(20 if delta else 0, limits.max_object_bytes)
            if delta:
                _, pos = varint(head, 0)
                size, _ = varint(head, pos)  # the size of the object the delta makes
            size = max(size, inflated)
            if size > limits.max_object_bytes:
                raise FetchTooLarge(f"an object of the repository is {size_text(size)} (over "
                                    f"{size_text(limits.max_object_bytes)}): refusing it")
            total += size
            if total > limits.max_total_bytes:
                raise FetchTooLarge(f"the repository inflates past "
                                    f"{size_text(limits.max_total_bytes)}: refusing it")
    except (EOFError, zlib.error):
        pass
    return total
