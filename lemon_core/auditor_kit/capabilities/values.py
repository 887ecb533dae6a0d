"""Abstract values for the capability interpreter, and the bounded constant folding on them.

A :class:`Value` is what the interpreter knows about an expression: its constant when folding
found one (``const``; a string, bytes, number or a tuple of values), or a best-effort text with
the unknown parts replaced by :data:`HOLE` (``partial``: ``f"curl -d {data} https://x"``), the
sources whose data it carries (``taint``), the module, callable or type it refers to (``ref``:
``os.system``, ``requests.Session``), the type of object it is (``inst``), and whether it was
built in a way that disguises it (``hidden``: character codes, a decoder, reversal, rot13, or a
name assembled from fragments).

Every operation is bounded: strings and bytes over :data:`MAX_CONST` characters are not kept,
decoders stop at :data:`MAX_DECODED` bytes.
"""

from __future__ import annotations

import base64
import binascii
import bz2
import codecs
import lzma
import re
import zlib
from collections.abc import Iterable
from typing import Any

import attrs

from lemon_core.auditor_kit.capabilities import vocab
from lemon_core.auditor_kit.capabilities.model import ENV, SECRET_READ, Source

#: Stands for an unknown part of a partially folded string.
HOLE = "\ue000"
MAX_CONST = 65_536
MAX_DECODED = 65_536
MAX_ITEMS = 4_096
MIN_FRAGMENT = 12
MAX_FRAGMENTS = 8
_UNKNOWN = object()


@attrs.frozen(slots=True)
class Value:
    const: Any = _UNKNOWN
    partial: str | None = None
    taint: frozenset[Source] = frozenset()
    ref: str | None = None
    inst: str | None = None
    hidden: bool = False
    built: bool = False
    items: tuple[Value, ...] | None = None
    file: tuple[str, str] | None = None
    #: Literal pieces (of :data:`MIN_FRAGMENT` characters or more) that went into this value
    #: on some path, kept when branches make the whole text unknown: what a file written with
    #: it may contain.
    frags: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.const is not _UNKNOWN

    def text(self) -> str | None:
        """The constant as text, or the partial text, or None."""
        if self.known:
            if isinstance(self.const, str):
                return self.const
            if isinstance(self.const, (bytes, bytearray)):
                return bytes(self.const).decode("utf-8", "replace")
            if isinstance(self.const, (int, float)) and not isinstance(self.const, bool):
                return str(self.const)
            return None
        return self.partial


UNKNOWN = Value()


def unknown(*parts: Value | None, hidden: bool = False) -> Value:
    """An unknown value carrying the taint of ``parts``."""
    return Value(taint=taint_of(*parts), hidden=hidden or any(p is not None and p.hidden
                                                              for p in parts))


def taint_of(*parts: Value | None) -> frozenset[Source]:
    out: frozenset[Source] = frozenset()
    for part in parts:
        if part is not None and part.taint:
            out = out | part.taint
        if part is not None and part.items:
            for item in part.items[:64]:
                if item.taint:
                    out = out | item.taint
    return out


def const(value: Any, *parts: Value | None, hidden: bool = False, built: bool = False,
          extra: Iterable[Source] = ()) -> Value:
    """A folded constant (None when it is too large to keep: then unknown)."""
    taint = taint_of(*parts) | frozenset(extra)
    hid = hidden or any(p is not None and p.hidden for p in parts)
    if isinstance(value, (str, bytes, bytearray)) and len(value) > MAX_CONST:
        return Value(taint=taint, hidden=hid)
    return Value(const=value, taint=taint, hidden=hid, built=built)


def fragments(*parts: Value | None) -> tuple[str, ...]:
    """The literal pieces of ``parts`` (their own constants and what they kept), bounded."""
    out: list[str] = []
    for part in parts:
        if part is None:
            continue
        if part.known and isinstance(part.const, str) and len(part.const) >= MIN_FRAGMENT:
            out.append(part.const)
        elif part.partial is not None:
            out.extend(p for p in part.partial.split(HOLE) if len(p) >= MIN_FRAGMENT)
        out.extend(part.frags)
    seen: list[str] = []
    for piece in out:
        if piece not in seen:
            seen.append(piece)
    return tuple(seen[-MAX_FRAGMENTS:])


def join(a: Value | None, b: Value | None) -> Value:
    """What a name may hold after two paths: the constant when both agree."""
    if a is None:
        return b or UNKNOWN
    if b is None:
        return a
    if a.known and b.known and type(a.const) is type(b.const) and a.const == b.const:
        return attrs.evolve(a, taint=a.taint | b.taint, hidden=a.hidden or b.hidden)
    return Value(taint=a.taint | b.taint, ref=a.ref if a.ref == b.ref else None,
                 inst=a.inst if a.inst == b.inst else None, hidden=a.hidden or b.hidden,
                 file=a.file if a.file == b.file else None,
                 partial=a.partial if a.partial == b.partial else None,
                 frags=fragments(a, b))


def as_text_piece(value: Value) -> str:
    """``value`` as it would appear inside a formatted string (:data:`HOLE` when unknown)."""
    text = value.text()
    if text is None:
        return HOLE
    return text


def concat(parts: list[Value]) -> Value:
    """``parts`` joined as strings (f-string, ``+``, ``''.join``): exact when every part is
    known, else partial; ``built`` when more than one literal went into it."""
    if all(p.known and isinstance(p.const, str) for p in parts):
        text = "".join(p.const for p in parts)
        return const(text, *parts, built=len(parts) > 1)
    if all(p.known and isinstance(p.const, (bytes, bytearray)) for p in parts):
        return const(b"".join(bytes(p.const) for p in parts), *parts, built=len(parts) > 1)
    pieces = [as_text_piece(p) for p in parts]
    total = sum(len(p) for p in pieces)
    partial = "".join(pieces) if total <= MAX_CONST else None
    return Value(partial=partial, taint=taint_of(*parts), hidden=any(p.hidden for p in parts),
                 built=True, frags=tuple(f for p in parts for f in p.frags)[-MAX_FRAGMENTS:])


def _bounded_inflate(data: bytes, wbits: int) -> bytes | None:
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(data, MAX_DECODED)
    except zlib.error:
        return None
    return out


def _bounded_stream(module: Any, data: bytes) -> bytes | None:
    try:
        decompressor = module.BZ2Decompressor() if module is bz2 else module.LZMADecompressor()
        return bytes(decompressor.decompress(data, max_length=MAX_DECODED))
    except (OSError, ValueError, EOFError, lzma.LZMAError):
        return None


def _to_bytes(value: Any) -> bytes | None:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        try:
            return value.encode("latin-1")
        except UnicodeEncodeError:
            return value.encode("utf-8", "replace")
    return None


def _rot13(text: str) -> str:
    return codecs.decode(text, "rot13")


#: decoder name -> what it undoes (the name of the encoding, for messages).
DECODERS = {
    "b64decode": "base64", "standard_b64decode": "base64", "urlsafe_b64decode": "base64",
    "decodebytes": "base64", "decodestring": "base64", "a2b_base64": "base64",
    "b32decode": "base32", "b32hexdecode": "base32", "b16decode": "base16", "b85decode": "base85",
    "a85decode": "ascii85", "unhexlify": "hex", "a2b_hex": "hex", "fromhex": "hex",
    "decompress": "compressed data", "loads": "serialised data",
}


def decode(kind: str, data: Any, module: str = "") -> bytes | str | None:
    """Apply the decoder ``kind`` (a name of :data:`DECODERS` or a codec name) of ``module``
    to the constant ``data``; None when it does not decode. Output is bounded."""
    raw = _to_bytes(data)
    if raw is None or len(raw) > MAX_CONST:
        return None
    try:
        if kind in ("b64decode", "standard_b64decode", "decodebytes", "decodestring",
                    "a2b_base64", "base64", "base_64"):
            out: bytes | str | None = base64.b64decode(raw + b"=" * (-len(raw) % 4))
        elif kind == "urlsafe_b64decode":
            out = base64.urlsafe_b64decode(raw + b"=" * (-len(raw) % 4))
        elif kind in ("b32decode", "base32"):
            out = base64.b32decode(raw + b"=" * (-len(raw) % 8), casefold=True)
        elif kind == "b32hexdecode":
            out = base64.b32hexdecode(raw + b"=" * (-len(raw) % 8), casefold=True)
        elif kind in ("b16decode", "unhexlify", "a2b_hex", "fromhex", "hex", "hex_codec"):
            out = binascii.unhexlify(b"".join(raw.split()))
        elif kind == "b85decode":
            out = base64.b85decode(raw)
        elif kind == "a85decode":
            out = base64.a85decode(raw, adobe=raw.startswith(b"<~"))
        elif kind in ("rot13", "rot_13"):
            out = _rot13(raw.decode("latin-1"))
        elif kind in ("zlib", "zlib_codec") or (kind == "decompress" and module == "zlib"):
            out = _bounded_inflate(raw, 47)  # zlib or gzip header, detected
        elif kind == "decompress" and module == "gzip":
            out = _bounded_inflate(raw, 31)
        elif kind in ("bz2", "bz2_codec") or (kind == "decompress" and module == "bz2"):
            out = _bounded_stream(bz2, raw)
        elif kind == "decompress" and module == "lzma":
            out = _bounded_stream(lzma, raw)
        else:
            return None
    except (ValueError, binascii.Error, TypeError):
        return None
    if isinstance(out, bytes) and len(out) > MAX_DECODED:
        out = out[:MAX_DECODED]
    return out


def readable(data: bytes | str) -> str:
    """Decoded bytes as text for matching (UTF-8, undecodable bytes replaced)."""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


#: A field width or precision of five digits or more: formatting it would build a huge string.
_WIDE = re.compile(r"%[-+ #0*]*\d{5,}|%[-+ #0]*\.\d{5,}|\{[^}]*:[^}]*\d{5,}")


def format_percent(template: str, args: Value) -> str | None:
    """``template % args`` for known arguments (None when it does not fold)."""
    if _WIDE.search(template) or "%*" in template:
        return None
    if args.items is not None:
        values = tuple(a.const if a.known else HOLE for a in args.items)
    elif args.known:
        values = (args.const,) if not isinstance(args.const, tuple) else args.const
    else:
        values = (HOLE,)
    try:
        return template % values
    except (TypeError, ValueError, KeyError, OverflowError):
        return None


def format_braces(template: str, args: list[Value], kwargs: dict[str, Value]) -> str | None:
    """``template.format(*args, **kwargs)`` with unknown arguments as :data:`HOLE`."""
    if _WIDE.search(template):
        return None
    positional = [as_text_piece(a) for a in args]
    named = {k: as_text_piece(v) for k, v in kwargs.items()}
    try:
        out = template.format(*positional, **named)
    except (IndexError, KeyError, ValueError, AttributeError, TypeError):
        return None
    return out if len(out) <= MAX_CONST else None


__all__ = [
    "DECODERS",
    "HOLE",
    "MAX_CONST",
    "MAX_DECODED",
    "MAX_ITEMS",
    "UNKNOWN",
    "Value",
    "as_text_piece",
    "concat",
    "const",
    "decode",
    "format_braces",
    "format_percent",
    "fragments",
    "join",
    "readable",
    "taint_of",
    "unknown",
]


def read_env(frontend: Any, name: str | None, node: Any, hidden: bool, callee: str) -> Value:
    """The value a frontend's read of the environment variable ``name`` gives (None: chosen at
    run time), recording the source and, for a secret's name, the ``secret_read`` fact;
    ``frontend`` has the ``source`` and ``fact`` methods of the Python and JavaScript
    readers, ``callee`` names the API read (``os.environ``, ``process.env``)."""
    if name is None:
        source = frontend.source(ENV, "an environment variable chosen at run time", node)
        return Value(taint=frozenset({source}), hidden=hidden)
    if name.upper() in ("HOME", "USERPROFILE"):
        return Value(const="~")
    grade = vocab.secret_env(name)
    if grade is None:
        return Value(hidden=hidden)
    source = frontend.source(ENV, name, node, grade)
    frontend.fact(SECRET_READ, node, "$" + name, frozenset({source}), "env", hidden, callee)
    return Value(taint=frozenset({source}), hidden=hidden)

