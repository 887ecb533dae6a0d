"""Undoing the cheap disguises scanners are known to miss: base64 / hex / escape / char-code
payloads, strings split into pieces (``"cu" + "rl"``, ``c''url``), ``$IFS`` for spaces,
backslashes inside words and variables holding the interesting part (``H=evil; curl $H``).

Each helper is pure and bounded (it looks at one text, yields at most :data:`MAX_CANDIDATES`
results); auditors re-run their own patterns on what comes out.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator, Mapping

import attrs

from lemon_core.auditor_kit.lazy import lazy_compile

MAX_CANDIDATES = 200
#: Decoded payloads longer than this are cut (pattern search needs the start).
MAX_DECODED_CHARS = 20_000


@attrs.frozen
class Decoded:
    """A piece of ``text[start:end]`` that decodes (``encoding``: base64, hex, escapes,
    charcodes) to readable ``text``."""

    start: int
    end: int
    encoding: str
    text: str


#: Maximal runs (a left-to-right scan starts a match at the start of a run).
_B64 = lazy_compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX_RUN = lazy_compile(r"[0-9A-Fa-f]{20,}")
_ESCAPES = lazy_compile(r"(?:\\x[0-9A-Fa-f]{2}|\\u00[0-9A-Fa-f]{2}|\\[0-7]{3}){4,}")
_CHARCODES = lazy_compile(
    r"(?:(?:chr|String\.fromCharCode|char)\s*\(\s*(?:0x[0-9a-fA-F]+|\d{2,3})\s*\)\s*[+.,]?\s*){4,}"
    r"|(?:fromCharCode|bytes|bytearray)\s*\(\s*\[?\s*(?:(?:0x[0-9a-fA-F]+|\d{2,3})\s*,\s*){3,}"
    r"(?:0x[0-9a-fA-F]+|\d{2,3})\s*\]?\s*\)"
)
_NUMBER = lazy_compile(r"0x[0-9a-fA-F]+|\d+")
#: What every match of :data:`_ESCAPES` starts with (one escape), and what every match of
#: :data:`_CHARCODES` holds (a bracket, then a number, then ``)`` or ``,``): searched first,
#: each from a literal the engine skips to, so a text without them is not searched for the
#: chains (a tenth of the time, and most texts with a backslash or a ``bytes`` hold none).
_ESCAPE_HINT = lazy_compile(r"\\(?:x[0-9A-Fa-f]{2}|u00[0-9A-Fa-f]{2}|[0-7]{3})")
_CHARCODE_HINT = lazy_compile(r"\(\s*\[?\s*(?:0x[0-9a-fA-F]+|\d{2,3})\s*[),]")

#: Byte tables marking the characters of a base64 / hex run ``a``, every other byte `` ``.
_B64_MARKS = bytes(ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "+/_-")
                   else ord(" ") for b in range(256))
_HEX_MARKS = bytes(ord("a") if chr(b) in "0123456789abcdefABCDEF" else ord(" ")
                   for b in range(256))
_RUNS = {"base64": (_B64_MARKS, 16), "hex": (_HEX_MARKS, 20)}


def _run_matches(pattern: re.Pattern[str], text: str, encoding: str) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for the run patterns :data:`_B64` and :data:`_HEX_RUN`, found
    faster: a match starts where a long enough run does, and those are found with a byte
    table and ``bytes.find`` (a non-ASCII character is one ``?`` byte, so offsets agree)."""
    table, width = _RUNS[encoding]
    marks = text.encode("ascii", "replace").translate(table)
    needle = b"a" * width
    at = marks.find(needle)
    while at != -1:
        match = pattern.match(text, at)
        if match is None:  # not reached: a run of ``width`` marks always matches
            at = marks.find(needle, at + 1)
            continue
        yield match
        at = marks.find(needle, max(match.end(), at + 1))


def readable(data: bytes) -> str | None:
    """``data`` as text when it is mostly printable UTF-8 (a decoded payload), else None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    letters = sum(1 for c in text if c.isalpha() or c == " ")
    if printable < 0.95 * len(text) or letters < 0.4 * len(text):
        return None
    return text[:MAX_DECODED_CHARS]


def _b64(blob: str) -> bytes | None:
    blob = blob.rstrip("=")
    if len(blob) % 4 == 1:
        return None
    padded = blob + "=" * (-len(blob) % 4)
    try:
        if "-" in blob or "_" in blob:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _escape_bytes(piece: str) -> bytes:
    out = bytearray()
    for token in re.findall(r"\\x([0-9A-Fa-f]{2})|\\u00([0-9A-Fa-f]{2})|\\([0-7]{3})", piece):
        hex1, hex2, octal = token
        out.append(int(hex1 or hex2, 16) if (hex1 or hex2) else int(octal, 8) & 0xFF)
    return bytes(out)


def _codes(piece: str) -> bytes | None:
    try:
        values = [int(n, 0) for n in _NUMBER.findall(re.sub(r"\(\s*\[?", " ", piece))]
    except ValueError:
        return None
    if any(v > 0x10FFFF for v in values):
        return None
    try:
        return "".join(chr(v) for v in values).encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return None


def decoded_payloads(text: str) -> Iterator[Decoded]:
    """Every piece of ``text`` that decodes to readable text, first the longest runs: base64
    (standard or URL-safe), runs of hex digits, ``\\xNN``/``\\u00NN``/octal escape chains and
    ``chr(99)+chr(117)`` / ``fromCharCode(...)`` / ``bytes([...])`` lists."""
    found = 0
    passes = [(_HEX_RUN, "hex"), (_B64, "base64")]
    if "\\" in text and _ESCAPE_HINT.search(text):
        passes.insert(0, (_ESCAPES, "escapes"))
    if "(" in text and ("chr" in text or "harCode" in text or "bytes" in text) and \
            _CHARCODE_HINT.search(text):
        passes.insert(0, (_CHARCODES, "charcodes"))
    for pattern, encoding in passes:
        matches = _run_matches(pattern, text, encoding) if encoding in _RUNS else \
            pattern.finditer(text)
        for match in matches:
            piece = match.group()
            if encoding == "hex" and len(piece) % 2:
                piece = piece[:-1]
            if encoding == "base64":
                if piece.isalpha() or piece.isdigit() or "/" in piece.strip("/") and \
                        piece.count("/") > len(piece) // 8:
                    continue  # a word, a number, or a path
                data = _b64(piece)
            elif encoding == "hex":
                data = bytes.fromhex(piece)
            elif encoding == "escapes":
                data = _escape_bytes(piece)
            else:
                data = _codes(piece)
            decoded = readable(data) if data else None
            if decoded is None:
                continue
            yield Decoded(match.start(), match.end(), encoding, decoded)
            found += 1
            if found >= MAX_CANDIDATES:
                return


_JOIN = lazy_compile(r"""(["'])\s*(?:\+|\.|\|\|)?\s*\1""")
_ESCAPE_ONE = lazy_compile(r"\\x[0-9A-Fa-f]{2}|\\[0-7]{3}")
_IFS = lazy_compile(r"\$\{IFS\}|\$IFS(?:\$\d)?")
_ANSI_C = lazy_compile(r"\$'((?:\\x[0-9A-Fa-f]{2}|\\[0-7]{3}|[^'\\])*)'")
_WORD_BACKSLASH = lazy_compile(r"(?<=[A-Za-z])\\(?=[A-Za-z])|(?<=\s)\\(?=[a-z])")
_INNER_QUOTE = lazy_compile(r"""(?<=\w)['"](?=\w)""")
_VAR = lazy_compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def join_strings(line: str) -> str:
    """``line`` with split string literals glued back: ``"cu" + "rl"``, ``'cu''rl'``,
    ``"cu" . "rl"``, ``c""url`` all read ``curl``."""
    return _JOIN.sub("", line) if ("'" in line or '"' in line) else line


def _ansi_c(match: re.Match[str]) -> str:
    return _ESCAPE_ONE.sub(lambda m: _escape_bytes(m.group()).decode("latin-1"), match.group(1))


def substitute(line: str, variables: Mapping[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` replaced by the values of ``variables`` (one pass)."""
    if "$" not in line or not variables:
        return line

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return variables.get(name, match.group())

    return _VAR.sub(value, line)


def normalise_shell(line: str, variables: Mapping[str, str] | None = None) -> str:
    """``line`` as a shell would run it, roughly: ``$IFS`` is a space, ``$'\\x63'`` is ``c``,
    backslashes inside words go, split quotes join, and known ``variables`` are substituted."""
    text = _IFS.sub(" ", line) if "IFS" in line else line
    if "$'" in text:
        text = _ANSI_C.sub(_ansi_c, text)
    if "\\" in text:
        text = _WORD_BACKSLASH.sub("", text)
    text = join_strings(text)
    if "'" in text or '"' in text:
        text = _INNER_QUOTE.sub("", text)
    if variables:
        text = substitute(text, variables)
    return text


_ASSIGN = lazy_compile(
    r"""^\s*(?:export\s+|local\s+|readonly\s+|set\s+|const\s+|let\s+|var\s+|\$)?"""
    r"""([A-Za-z_]\w*)\s*(?::\s*str\s*)?(=|:=)\s*(?:(["'])(.*?)\3|([^\s;'"`()]+))\s*;?\s*$"""
)


def assignments(text: str, limit: int = 500) -> dict[str, str]:
    """Simple ``NAME=value`` / ``NAME = "value"`` / ``const NAME = '…'`` assignments of
    ``text`` (shell, Python, JavaScript, PowerShell), later ones winning, values already
    substituted with the earlier ones and split strings joined."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        if "=" not in raw or len(found) >= limit:
            continue
        line = raw.split(" #", 1)[0] if " #" in raw else raw
        match = _ASSIGN.match(join_strings(line))
        if match is None:
            continue
        value = match.group(4) if match.group(3) else match.group(5)
        if value is None or value.startswith("="):
            continue
        found[match.group(1)] = substitute(value, found)
    return found


def deobfuscate(line: str, variables: Mapping[str, str] | None = None) -> str:
    """:func:`normalise_shell` then the file's ``variables`` (alias kept short for auditors)."""
    return normalise_shell(line, variables)


__all__ = ["MAX_CANDIDATES", "Decoded", "assignments", "decoded_payloads", "deobfuscate",
           "join_strings", "normalise_shell", "readable", "substitute"]
