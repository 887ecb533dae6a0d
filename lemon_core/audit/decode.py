"""Every way a file's bytes can be read as text, for the auditors' pattern search.

A scanner that only reads UTF-8 is bypassed by saving the payload as UTF-16 (``curl`` spelled
``c\\0u\\0r\\0l\\0``), and one that skips undecodable files is bypassed by one bad byte. So:

- a BOM decides (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE);
- without one, NUL bytes mostly at odd (even) offsets mean UTF-16 LE (BE) and are decoded so;
- otherwise UTF-8;
- a file that is none of those has ``text`` None and is searched as Latin-1 (every byte is a
  character), and, when it holds NULs, as Latin-1 with the NULs dropped (text interleaved with
  NULs to hide it).

A UTF-16 or UTF-32 reading is searched together with that Latin-1 view: two bytes ``FF FE``
in front of an ASCII script make it "valid UTF-16" that reads as CJK, and the script must
still be seen.
"""

from __future__ import annotations

import codecs

import attrs

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: How many leading bytes the NUL-pattern heuristic looks at.
_SAMPLE = 4096


@attrs.frozen
class Decoded:
    """``text``: the file as text (None when it is not text in any encoding tried);
    ``encoding``: the decoding of ``text`` (``latin-1`` when ``text`` is None);
    ``texts``: every decoding worth searching, ``text`` first."""

    text: str | None
    encoding: str
    texts: tuple[str, ...]


def _utf16_guess(data: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` when NULs fall mostly on one parity of offsets."""
    sample = data[:_SAMPLE]
    if b"\0" not in sample or len(sample) < 2:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    half = len(sample) // 2
    if odd >= half * 0.3 and even <= odd * 0.1:
        return "utf-16-le"
    if even >= half * 0.3 and odd <= even * 0.1:
        return "utf-16-be"
    return None


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        return None


def _latin(data: bytes) -> tuple[str, ...]:
    latin = data.decode("latin-1")
    return (latin, latin.replace("\0", "")) if "\0" in latin else (latin,)


def _wide(text: str, encoding: str, data: bytes) -> Decoded:
    return Decoded(text, encoding, (text, *_latin(data)))


def decode(data: bytes) -> Decoded:
    """The text of ``data`` and every decoding worth searching (see the module)."""
    if data.isascii() and b"\0" not in data:  # the common case: ASCII is UTF-8
        text = data.decode("ascii")
        return Decoded(text, "utf-8", (text,))
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = _strict(data[len(bom):], encoding)
            if text is not None:
                return (Decoded(text, encoding, (text,)) if encoding == "utf-8"
                        else _wide(text, encoding, data))
            break
    guess = _utf16_guess(data)
    if guess is not None:
        text = _strict(data[: len(data) - len(data) % 2], guess)
        if text is not None:
            return _wide(text, guess, data)
    text = _strict(data, "utf-8")
    if text is not None:
        if "\0" in text:  # NULs between the characters of a hidden word: search without them
            return Decoded(text, "utf-8", (text, text.replace("\0", "")))
        return Decoded(text, "utf-8", (text,))
    return Decoded(None, "latin-1", _latin(data))


__all__ = ["Decoded", "decode"]
