"""Objects of a git object store read under a size cap, a large blob never held whole.

dulwich inflates an object whole when asked for it (``store[sha]``): a 300 MiB blob is 300 MiB
of memory, and a local repository is read with no cap at all. Here the size of an object is
read from its header first (a loose object's first inflated bytes; a packed object's entry
header in the pack, or, for a delta, the size its delta makes), so an object over a cap is
refused before a byte of its body is inflated, and a blob is streamed into a file 64 KiB at a
time:

- :func:`object_size` — the type and inflated size of an object, from its header alone;
- :func:`load` — the parsed object (a tree, commit or tag), after checking its size;
- :func:`read_small` — a blob's bytes, after checking its size (link targets, LFS pointers);
- :func:`copy_blob` — a blob written into a file descriptor in bounded chunks (a packed delta,
  which only dulwich resolves, is built whole: it, and every object of its delta chain, is
  under the cap by then; the base of a small file may otherwise be a huge blob anywhere).

Files of the store are opened through the safe reader (regular files only, never blocking, no
link followed in the last component). Stores without files (dulwich's in-memory store) are
asked directly: their objects are in memory already.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import Any

import attrs

from lemon_core.source_kit.limits import FetchTooLarge, size_text, varint
from lemon_core.source_kit.transport import GitSourceError

_CHUNK = 64 * 1024
_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
_NAMES = {v: k.decode() for k, v in _TYPES.items()}
_OFS_DELTA, _REF_DELTA = 6, 7
_MAX_ALTERNATES = 4
#: Deltas built on deltas: git itself never writes chains deeper than 4,095.
_MAX_CHAIN = 5_000


@attrs.frozen
class Where:
    """Where an object lives: a ``loose`` file, a ``packed`` entry at ``offset`` (its
    compressed data at ``data_offset``; ``delta`` when only dulwich can build it) or
    ``memory``; ``type_num`` and ``size`` (inflated) from its header."""

    kind: str
    type_num: int
    size: int
    path: str = ""
    data_offset: int = 0
    delta: bool = False
    #: A delta's base: its offset in the same pack, or its id; and the base's size.
    base: int | bytes | None = None
    source_size: int = 0


def _hex(sha: bytes | str) -> str:
    return sha.decode("ascii") if isinstance(sha, bytes) else sha


def _open(path: str) -> int | None:
    """A descriptor of the store's file ``path`` (a regular file, not a link), or None when
    there is none."""
    from lemon_core.fsio.read import FileProblem, describe, open_regular

    try:
        fd, _ = open_regular(path, nofollow=True)
    except FileNotFoundError:
        return None
    except FileProblem as exc:
        raise GitSourceError(f"cannot read the repository's object store: {exc.message}"
                             ) from None
    except (OSError, ValueError) as exc:
        why = describe(exc) if isinstance(exc, OSError) else "an invalid path"
        raise GitSourceError(f"cannot read the repository's object store: {why}") from None
    return fd


def _must_open(path: str) -> int:
    fd = _open(path)
    if fd is None:
        raise GitSourceError("a file of the repository's object store went away while lemon "
                             "read it; try again")
    return fd


def _inflate_head(fd: int, offset: int, want: int) -> bytes:
    """The first ``want`` inflated bytes of the zlib stream at ``offset`` (or fewer)."""
    d = zlib.decompressobj()
    out = b""
    pos = offset
    while len(out) < want and not d.eof:
        data = os.pread(fd, 4096, pos)
        if not data:
            break
        pos += len(data)
        out += d.decompress(data, want - len(out))
        while d.unconsumed_tail and len(out) < want:
            out += d.decompress(d.unconsumed_tail, want - len(out))
    return out


def _loose(path: str) -> Where | None:
    fd = _open(path)
    if fd is None:
        return None
    try:
        head = _inflate_head(fd, 0, 32)
    except zlib.error:
        raise GitSourceError("the repository holds a damaged loose object: refusing it"
                             ) from None
    finally:
        os.close(fd)
    name, _, rest = head.partition(b" ")
    size_text_, nul, _ = rest.partition(b"\0")
    if name not in _TYPES or not nul or not size_text_.isdigit():
        raise GitSourceError("the repository holds a loose object lemon cannot read: "
                             "refusing it")
    return Where("loose", _TYPES[name], int(size_text_), path=path)


def _damaged() -> GitSourceError:
    return GitSourceError("the repository holds a damaged pack: refusing it")


def _packed_at(path: str, offset: int, hash_len: int) -> Where:
    """The pack entry at ``offset`` of the pack file ``path``, from its header (and, for a
    delta, the sizes its delta's header gives: the object it is built from, the one it
    makes)."""
    fd = _must_open(path)
    try:
        head = os.pread(fd, 32 + hash_len, offset)
        if not head:
            raise _damaged()
        byte, pos = head[0], 1
        type_num, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
        while byte & 0x80:
            if pos >= len(head):
                raise _damaged()
            byte = head[pos]
            size |= (byte & 0x7F) << shift
            shift += 7
            pos += 1
        base: int | bytes | None = None
        if type_num == _OFS_DELTA:
            if pos >= len(head):
                raise _damaged()
            byte = head[pos]
            pos += 1
            back = byte & 0x7F
            while byte & 0x80:
                if pos >= len(head):
                    raise _damaged()
                byte = head[pos]
                pos += 1
                back = ((back + 1) << 7) | (byte & 0x7F)
            if not 0 < back <= offset:
                raise _damaged()
            base = offset - back
        elif type_num == _REF_DELTA:
            base = head[pos:pos + hash_len].hex().encode("ascii")
            pos += hash_len
        source = 0
        if base is not None:  # the delta's header: the size of its base, of what it makes
            try:
                body = _inflate_head(fd, offset + pos, 24)
            except zlib.error:
                raise _damaged() from None
            source, at = varint(body, 0)
            size, _ = varint(body, at)
    finally:
        os.close(fd)
    return Where("packed", type_num, size, path=path, data_offset=offset + pos,
                 delta=base is not None, base=base, source_size=source)


def _packed(pack: Any, sha: bytes) -> Where | None:
    try:
        offset = pack.index.object_offset(sha)
    except KeyError:
        return None
    return _packed_at(os.fspath(pack.data.path), offset, len(_hex(sha)) // 2)


def _check_chain(store: Any, where: Where, cap: int, what: str, hash_len: int) -> None:
    """Every object a delta is built from is under ``cap``: dulwich builds each one whole,
    and the base of a small file may be a huge blob anywhere in the repository."""
    current = where
    for _ in range(_MAX_CHAIN):
        if not current.delta:
            return
        if current.source_size > cap:
            raise FetchTooLarge(f"{what} is stored as a change to an object of "
                                f"{size_text(current.source_size)} (over the "
                                f"{size_text(cap)} a fetched file may hold): refusing it")
        if isinstance(current.base, int):
            current = _packed_at(current.path, current.base, hash_len)
        else:
            assert current.base is not None
            current = locate(store, current.base)
    raise GitSourceError(f"{what} is stored as a chain of more than {_MAX_CHAIN:,} changes: "
                         "refusing it")


def locate(store: Any, sha: bytes, depth: int = 0) -> Where:
    """Where ``sha`` lives in ``store`` (its alternates too), with its size; KeyError if it
    is in none. A delta's ``type_num`` is the delta's own (6 or 7): the caller knows from
    the tree what it asked for, and dulwich checks the object it builds."""
    if not hasattr(store, "path"):  # an in-memory store: the object is built already
        obj = store[sha]
        return Where("memory", obj.type_num, obj.raw_length())
    for pack in store.packs:
        found = _packed(pack, sha)
        if found is not None:
            return found
    hexsha = _hex(sha)
    found = _loose(os.path.join(os.fspath(store.path), hexsha[:2], hexsha[2:]))
    if found is not None:
        return found
    if depth < _MAX_ALTERNATES:
        for other in getattr(store, "alternates", ()):
            try:
                return locate(other, sha, depth + 1)
            except KeyError:
                continue
    raise KeyError(sha)


def object_size(store: Any, sha: bytes) -> tuple[int, int]:
    """(type number, inflated size) of ``sha`` from its header alone; KeyError if absent."""
    where = locate(store, sha)
    return where.type_num, where.size


def _over(what: str, size: int, cap: int) -> FetchTooLarge:
    return FetchTooLarge(f"{what} is {size_text(size)} (over the {size_text(cap)} a fetched "
                         "file may hold): refusing it")


def load(store: Any, sha: bytes, cap: int, what: str = "an object of the repository",
         base_cap: int | None = None) -> Any:
    """The parsed object ``sha`` (a tree, commit or tag), refused past ``cap`` bytes before it
    is inflated, and when any object it is built from (a delta's bases) is past ``base_cap``
    (default ``cap``: a small object's base may well be larger than it)."""
    where = locate(store, sha)
    if where.size > cap:
        raise _over(what, where.size, cap)
    _check_chain(store, where, max(cap, base_cap or 0), what, len(_hex(sha)) // 2)
    return store[sha]


def read_small(store: Any, sha: bytes, cap: int, what: str,
               base_cap: int | None = None) -> bytes:
    """The bytes of the blob ``sha``, refused past ``cap`` (its bases past ``base_cap``,
    default ``cap``) before it is inflated."""
    return load(store, sha, cap, what, base_cap).as_raw_string()


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def copy_blob(store: Any, sha: bytes, out: int, cap: int, what: str,
              base_cap: int | None = None) -> int:
    """Write the blob ``sha`` into the descriptor ``out``, 64 KiB at a time; its size.
    Refused past ``cap`` from its header, before a byte is written; a stream that inflates
    to other bytes than its header and id promise is refused too. The objects a delta is
    built from are held to ``base_cap`` (default ``cap``)."""
    where = locate(store, sha)
    if where.size > cap:
        raise _over(what, where.size, cap)
    _check_chain(store, where, max(cap, base_cap or 0), what, len(_hex(sha)) // 2)
    if where.kind == "memory" or where.delta:
        data = store[sha].as_raw_string()
        if len(data) > cap:
            raise _over(what, len(data), cap)
        _write_all(out, data)
        return len(data)
    return _stream(where, sha, out, cap, what)


def _stream(where: Where, sha: bytes, out: int, cap: int, what: str) -> int:
    hexsha = _hex(sha)
    digest = hashlib.sha1() if len(hexsha) == 40 else hashlib.sha256()
    digest.update(b"%s %d\0" % (_NAMES.get(where.type_num, "blob").encode(), where.size))
    fd = _must_open(where.path)
    d = zlib.decompressobj()
    pos = where.data_offset
    header = where.kind == "loose"  # a loose object starts with its "blob <size>\0" header
    pending = b""
    written = 0
    try:
        while not d.eof:
            data = os.pread(fd, _CHUNK, pos)
            if not data:
                break
            pos += len(data)
            while data:
                chunk = d.decompress(data, _CHUNK)
                data = d.unconsumed_tail
                if header:
                    pending += chunk
                    if b"\0" not in pending:
                        if len(pending) > 64:
                            raise GitSourceError(f"{what}: a damaged object: refusing it")
                        continue
                    chunk = pending.partition(b"\0")[2]
                    header = False
                if written + len(chunk) > min(cap, where.size):
                    raise FetchTooLarge(f"{what} inflates past its header's "
                                        f"{size_text(where.size)}: refusing it")
                digest.update(chunk)
                _write_all(out, chunk)
                written += len(chunk)
                if d.eof:
                    break
    except zlib.error:
        raise GitSourceError(f"{what}: a damaged object in the repository: refusing it"
                             ) from None
    finally:
        os.close(fd)
    if written != where.size or digest.hexdigest() != hexsha:
        raise GitSourceError(f"{what}: the object's bytes do not match its id: refusing it")
    return written


__all__ = ["Where", "copy_blob", "load", "locate", "object_size", "read_small"]
