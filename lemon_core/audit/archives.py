"""Archives inside a skill, opened for the auditors: a payload zipped up is still read.

A scanner that only reads the files it finds is bypassed by zipping the payload: lemon never
unpacks an archive when it installs a skill, but an agent told to ``unzip tools.zip && ./run.sh``
will. So the host opens every ZIP, tar (plain, gzip, bzip2, xz) and single gzip/bzip2/xz
stream it reads, in memory, and hands each member to the auditors as one more
:class:`~lemon_core.protocols.AuditFile` named ``<archive>!/<member>`` (``archive`` set to the
archive's path). Nothing is written to disk and nothing in the archive is run.

Members keep what makes them dangerous, for the structure auditor to judge as it judges the
folder itself: a link member is a ``symlink`` entry (``link_inside`` False when it leaves the
archive's root), a device or FIFO member a special file, a name with ``..`` or a leading ``/``
keeps it. Bounds, as the reference scanners set them: archives nested at most
:data:`MAX_DEPTH` deep, at most :data:`MAX_MEMBERS` members and :data:`MAX_TOTAL_BYTES`
unpacked in one bundle, no member over :data:`MAX_MEMBER_BYTES`, and a member that unpacks to
more than :data:`MAX_RATIO` times its packed size past 1 MiB is a bomb. What could not be read
whole (a bomb, a cap reached, an encrypted member) is a problem the host turns into a blocking
finding: a bundle not seen whole is not vouched for. An archive that does not open (corrupt,
or a format lemon does not read: 7z, RAR, zstd) is left to the structure auditor, which warns.
"""

from __future__ import annotations

import bz2
import io
import lzma
import posixpath
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable

import attrs

from lemon_core.audit.decode import decode
from lemon_core.protocols import AuditFile

MAX_DEPTH = 3
MAX_MEMBERS = 500
MAX_TOTAL_BYTES = 50 * 1024 * 1024
MAX_MEMBER_BYTES = 10 * 1024 * 1024
MAX_RATIO = 100
#: A member smaller than this is never a bomb, whatever its ratio (a 2 KiB file of spaces).
RATIO_FLOOR = 1024 * 1024
SEPARATOR = "!/"

_STREAMS: dict[bytes, tuple[str, Callable[[], object]]] = {
    b"\x1f\x8b": ("gzip", lambda: zlib.decompressobj(16 + zlib.MAX_WBITS)),
    b"BZh": ("bzip2", bz2.BZ2Decompressor),
    b"\xfd7zXZ\x00": ("xz", lzma.LZMADecompressor),
}
_STREAM_SUFFIXES = (".gz", ".tgz", ".bz2", ".tbz2", ".xz", ".txz")


@attrs.frozen
class Problem:
    """What kept part of an archive from being audited (``path``: the archive or member)."""

    path: str
    message: str


@attrs.define
class Budget:
    """What is left to unpack in one bundle."""

    members: int = MAX_MEMBERS
    bytes: int = MAX_TOTAL_BYTES


@attrs.frozen
class Expansion:
    """The members of one archive (nested archives' members included), and its problems;
    ``opened`` is False when the bytes are not an archive lemon reads."""

    members: tuple[AuditFile, ...] = ()
    problems: tuple[Problem, ...] = ()
    opened: bool = False


def is_archive(data: bytes) -> bool:
    """Whether ``data`` starts like an archive this module opens."""
    return (data.startswith((b"PK\x03\x04", b"PK\x05\x06")) or _is_tar(data)
            or any(data.startswith(magic) for magic in _STREAMS))


def _is_tar(data: bytes) -> bool:
    return data[257:262] == b"ustar"


def expand(path: str, data: bytes, budget: Budget, depth: int = 1) -> Expansion:
    """Open the archive ``data`` (the bundle's file ``path``) and every archive inside it."""
    out = _Expander(budget)
    opened = out.archive(path, data, depth)
    return Expansion(tuple(out.members), tuple(out.problems), opened)


def _inflate(data: bytes, magic: bytes, opener: Callable[[], object], cap: int) -> bytes:
    """Every stream of ``data`` decompressed (``gzip`` reads concatenated members, so a second
    member cannot hide behind a first), stopping one byte past ``cap``."""
    out = bytearray()
    rest = data
    while rest.startswith(magic):
        stream: object = opener()
        out += stream.decompress(rest, cap + 1 - len(out))  # type: ignore[attr-defined]
        if len(out) > cap or not stream.eof:  # type: ignore[attr-defined]
            break
        rest = stream.unused_data  # type: ignore[attr-defined]
    return bytes(out)


class _Expander:
    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.members: list[AuditFile] = []
        self.problems: list[Problem] = []

    def archive(self, path: str, data: bytes, depth: int) -> bool:
        """Add the members of ``data``; False when it is not an archive that opens."""
        try:
            if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
                return self._zip(path, data, depth)
            if _is_tar(data):
                return self._tar(path, data, depth)
            for magic, (name, opener) in _STREAMS.items():
                if data.startswith(magic):
                    return self._stream(path, data, depth, magic, name, opener)
        except (zipfile.BadZipFile, tarfile.TarError, zlib.error, OSError, EOFError,
                lzma.LZMAError, ValueError, NotImplementedError, RuntimeError):
            return False
        return False

    # -- the formats -------------------------------------------------------------------------
    def _zip(self, path: str, data: bytes, depth: int) -> bool:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            for info in infos:
                if not self._room(path):
                    break
                name = info.filename
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    target = self._read_zip(archive, info, path, MAX_MEMBER_BYTES)
                    self._link(path, name, (target or b"").decode("utf-8", "replace"))
                    continue
                if info.is_dir():
                    continue
                if info.flag_bits & 0x1:
                    self._problem(path, name, "an encrypted member, which no rule can read")
                    continue
                if info.file_size > RATIO_FLOOR and \
                        info.file_size > MAX_RATIO * max(info.compress_size, 1):
                    self._problem(path, name, f"unpacks to {info.file_size} bytes from "
                                              f"{info.compress_size} (over {MAX_RATIO}:1: an "
                                              "archive bomb); not unpacked")
                    continue
                body = self._read_zip(archive, info, path, self._cap())
                if body is not None:
                    self._file(path, name, body, depth)
        return True

    def _read_zip(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str,
                  cap: int) -> bytes | None:
        with archive.open(info) as handle:
            body = handle.read(cap + 1)
        if len(body) > cap:
            self._problem(path, info.filename, self._over(cap))
            return None
        return body

    def _tar(self, path: str, data: bytes, depth: int) -> bool:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for info in archive:
                if not self._room(path):
                    break
                name = info.name
                if info.issym() or info.islnk():
                    self._link(path, name, info.linkname)
                elif info.isdir():
                    continue
                elif not info.isfile():
                    self._special(path, name)
                else:
                    cap = self._cap()
                    handle = archive.extractfile(info)
                    body = handle.read(cap + 1) if handle is not None else b""
                    if len(body) > cap:
                        self._problem(path, name, self._over(cap))
                        continue
                    self._file(path, name, body, depth)
        return True

    def _stream(self, path: str, data: bytes, depth: int, magic: bytes, name: str,
                opener: Callable[[], object]) -> bool:
        """A gzip, bzip2 or xz stream: a tar inside it, or one compressed file."""
        cap = min(self.budget.bytes, MAX_TOTAL_BYTES)
        body = _inflate(data, magic, opener, cap)
        if len(body) > cap:
            self._problem(path, None, f"its {name} stream unpacks past {cap} bytes (an "
                                      "archive bomb, or over the bundle's cap); not unpacked")
            return True
        if _is_tar(body):
            return self._tar(path, body, depth)
        inner = posixpath.basename(path)
        for suffix in _STREAM_SUFFIXES:
            if inner.lower().endswith(suffix):
                inner = inner[:-len(suffix)] + (".tar" if suffix.startswith(".t") else "")
                break
        self._file(path, inner or "data", body, depth)
        return True

    # -- the members -------------------------------------------------------------------------
    def _room(self, path: str) -> bool:
        if self.budget.members > 0 and self.budget.bytes > 0:
            return True
        self._problem(path, None, f"the bundle's archives hold more than {MAX_MEMBERS} members "
                                  f"or {MAX_TOTAL_BYTES} bytes; the rest was not unpacked")
        return False

    def _cap(self) -> int:
        return max(0, min(MAX_MEMBER_BYTES, self.budget.bytes))

    @staticmethod
    def _over(cap: int) -> str:
        return f"unpacks past {cap} bytes (lemon's cap for one member); not unpacked"

    def _problem(self, path: str, name: str | None, message: str) -> None:
        self.problems.append(Problem(path + SEPARATOR + name if name else path, message))

    def _file(self, path: str, name: str, body: bytes, depth: int) -> None:
        self.budget.members -= 1
        self.budget.bytes -= len(body)
        where = path + SEPARATOR + name
        decoded = decode(body)
        before = len(self.members)
        opened = depth < MAX_DEPTH and is_archive(body) and self.archive(where, body, depth + 1)
        self.members.append(AuditFile(
            path=where, text=decoded.text, size=len(body), encoding=decoded.encoding,
            texts=decoded.texts, archive=path,
            members=len(self.members) - before if opened else None))

    def _link(self, path: str, name: str, target: str) -> None:
        self.budget.members -= 1
        lexical = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
        inside = bool(target) and not target.startswith("/") and lexical != ".." \
            and not lexical.startswith("../")
        self.members.append(AuditFile(
            path=path + SEPARATOR + name, text=None, size=0, kind="symlink",
            link_target=target, link_inside=inside, archive=path))

    def _special(self, path: str, name: str) -> None:
        self.budget.members -= 1
        self.members.append(AuditFile(path=path + SEPARATOR + name, text=None, size=0,
                                      kind="other", archive=path))


__all__ = ["MAX_DEPTH", "MAX_MEMBERS", "MAX_MEMBER_BYTES", "MAX_RATIO", "MAX_TOTAL_BYTES",
           "SEPARATOR", "Budget", "Expansion", "Problem", "expand", "is_archive"]
