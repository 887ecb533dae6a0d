"""Split a SKILL.md into its frontmatter and its body, within fixed bounds.

A SKILL.md may open with YAML frontmatter between ``---`` lines or TOML frontmatter between
``+++`` lines. Tolerated: a UTF-8 byte-order mark, CRLF line endings, blank lines before the
opening delimiter (reported by the manifest loader as a warning), trailing spaces after a
delimiter, a closing delimiter at the end of the file. A file without an opening delimiter has
no frontmatter (format ``"none"``); an empty frontmatter is fine. An opening delimiter without a
closing one is an error, and so is frontmatter longer than :data:`MAX_FRONTMATTER_BYTES`.

Two entry points:

* :func:`split_frontmatter` splits a whole decoded text (``lemon skill lint`` uses it, together
  with :func:`decode_skill_text` for the bytes of a file);
* :func:`read_frontmatter` reads only as much of a file as the frontmatter needs, starting with
  :data:`HEAD_BYTES` and growing until the closing delimiter or the size bound (the discovery
  hot path uses it through :mod:`lemon_core.manifest.load`).

Failures raise :class:`FrontmatterError`, whose ``code`` is a stable diagnostic code.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Literal

import attrs

from lemon_core.errors import ManifestError

FrontmatterFormat = Literal["yaml", "toml", "none"]

#: Bytes read first; most SKILL.md frontmatter fits in them.
HEAD_BYTES = 4096
#: The largest frontmatter accepted, in UTF-8 bytes (the text between the delimiters).
MAX_FRONTMATTER_BYTES = 64 * 1024
#: How far :func:`read_frontmatter` reads at most before giving up.
READ_CAP_BYTES = MAX_FRONTMATTER_BYTES + HEAD_BYTES

_DELIMITERS: dict[str, FrontmatterFormat] = {"---": "yaml", "+++": "toml"}
_BOM = "\ufeff"
_SPACE = " \t\r"


class FrontmatterError(ManifestError):
    """The frontmatter could not be split, decoded or parsed; ``code`` names the reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@attrs.frozen
class Frontmatter:
    """A SKILL.md split in two.

    ``raw`` is the text between the delimiters with LF line endings (empty when there is no
    frontmatter); ``body`` is everything after the closing delimiter line (the whole text when
    there is no frontmatter) and starts at ``body_offset`` in the text that was split (a BOM
    counts as one character). ``raw_line`` is the 1-based line of the file on which ``raw``
    starts (0 without frontmatter), so parser positions can be reported as file lines.
    """

    format: FrontmatterFormat
    raw: str
    body: str
    body_offset: int
    raw_line: int = 0
    leading_blank_lines: int = 0


def split_frontmatter(text: str) -> Frontmatter:
    """Split a whole SKILL.md text into frontmatter and body.

    Raises :class:`FrontmatterError` with code ``frontmatter_unclosed`` (an opening delimiter
    without a closing one) or ``frontmatter_too_large`` (more than
    :data:`MAX_FRONTMATTER_BYTES` between the delimiters).
    """
    return _frontmatter(text, _split_whole(text))


def _frontmatter(text: str, found: Split) -> Frontmatter:
    """The :class:`Frontmatter` of a split of ``text``."""
    fmt, raw, body_offset, raw_line, blank = found
    return Frontmatter(fmt, raw, text[body_offset:], body_offset, raw_line, blank)


def decode_skill_text(data: bytes) -> str:
    """Decode SKILL.md bytes as UTF-8 (a BOM is kept as U+FEFF; :func:`split_frontmatter`
    skips it). Raises :class:`FrontmatterError` ``invalid_utf8`` or ``binary_file`` (NUL)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _utf8_error(data[:4], exc.start) from None
    check_text(text)
    return text


def check_text(text: str) -> None:
    """Reject text that holds a NUL character (``binary_file``): a SKILL.md is a text file."""
    if "\x00" in text:
        offset = text.index("\x00")
        raise FrontmatterError(
            "binary_file",
            f"the file contains a NUL character (character {offset}); "
            "a SKILL.md must be a UTF-8 text file",
        )


def read_frontmatter(read: Callable[[int], bytes]) -> tuple[str, Frontmatter]:
    """Read a SKILL.md through ``read(n)`` just far enough to split its frontmatter.

    ``read(n)`` returns up to ``n`` bytes, fewer only at the end of the file. Reading starts
    with :data:`HEAD_BYTES` and doubles while the closing delimiter is missing, stopping at
    :data:`READ_CAP_BYTES`; the body beyond what was read is never read. Returns the decoded
    text that was read and the split of it (whose ``body`` is therefore partial). Everything
    read must be valid UTF-8: raises :class:`FrontmatterError` ``invalid_utf8`` otherwise.
    """
    text, found = read_split(read, read(HEAD_BYTES))
    return text, _frontmatter(text, found)


#: A split without its body: ``(format, raw, body_offset, raw_line, leading_blank_lines)``;
#: the body is ``text[body_offset:]``. The discovery hot path never needs the body.
Split = tuple[FrontmatterFormat, str, int, int, int]


def read_split(read: Callable[[int], bytes], head: bytes) -> tuple[str, Split]:
    """:func:`read_frontmatter` without building the body: ``head`` is what ``read(HEAD_BYTES)``
    returned (the caller read it), ``read`` reads on from there when the frontmatter is longer.
    """
    if len(head) < HEAD_BYTES:  # the whole file: the common case, decoded in one call
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _utf8_error(head[:4], exc.start) from None
        return text, _split_whole(text)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:  # maybe only a character cut at the end of the head
        pass
    else:
        found = _split(text, False)
        if found is not None:
            return text, found
    return _read_on(read, head)


def _read_on(read: Callable[[int], bytes], head: bytes) -> tuple[str, Split]:
    """The general case: decode incrementally and read on (doubling) until the split decides."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    text, total, size, chunk = "", 0, HEAD_BYTES, head
    while True:
        pending = decoder.getstate()[0]
        eof = len(chunk) < size
        try:
            text += decoder.decode(chunk, final=eof)
        except UnicodeDecodeError as exc:
            raise _utf8_error(head[:4], total - len(pending) + exc.start) from None
        total += len(chunk)
        if eof:
            return text, _split_whole(text)
        found = _split(text, False)
        if found is not None:
            return text, found
        if total >= READ_CAP_BYTES:
            return text, _give_up(text)
        size = min(total, READ_CAP_BYTES - total)
        chunk = read(size)


def _give_up(text: str) -> Split:
    """The read cap was reached without a closing delimiter: decide on what was read."""
    try:
        return _split_whole(text)
    except FrontmatterError as exc:
        if exc.code == "frontmatter_unclosed":
            raise _too_large() from None
        raise


def _utf8_error(first: bytes, offset: int) -> FrontmatterError:
    if first.startswith((b"\xff\xfe", b"\xfe\xff")):
        hint = "the file looks like UTF-16; save it as UTF-8"
    else:
        hint = "save it as UTF-8 text"
    return FrontmatterError("invalid_utf8", f"invalid UTF-8 at byte {max(offset, 0)}; {hint}")


def _too_large() -> FrontmatterError:
    return FrontmatterError(
        "frontmatter_too_large",
        f"no closing delimiter within the first {MAX_FRONTMATTER_BYTES // 1024} KiB: the "
        "frontmatter is not closed or too large; close it and move long text into the body",
    )


def _split_whole(text: str) -> Split:
    found = _split(text, True)
    assert found is not None  # a complete text always decides
    return found


def _split(text: str, complete: bool) -> Split | None:
    """Split ``text``; None when ``text`` is a prefix (not ``complete``) that cannot decide."""
    if text[3:4] == "\n" and text[:3] in _DELIMITERS:  # the usual first line, as decided below
        return _close(text, text[:3], _DELIMITERS[text[:3]], 4, 0, complete)
    start = 1 if text.startswith(_BOM) else 0
    rest = text[start:].lstrip(" \t\r\n")
    if not rest and not complete:
        return None
    pos = text.rfind("\n", start, len(text) - len(rest)) + 1 or start
    delimiter = text[pos : pos + 3]
    fmt = _DELIMITERS.get(delimiter)
    if fmt is None:
        if not complete and len(text) - pos < 3 and any(d.startswith(rest) for d in _DELIMITERS):
            return None
        return "none", "", start, 0, 0
    eol = text.find("\n", pos + 3)
    if eol != pos + 3 and text[pos + 3 : len(text) if eol < 0 else eol].strip(_SPACE):
        return "none", "", start, 0, 0
    if eol < 0:
        if complete:
            raise _unclosed(delimiter)
        return None
    blank = text.count("\n", start, pos) if pos > start else 0
    return _close(text, delimiter, fmt, eol + 1, blank, complete)


def _close(
    text: str, delimiter: str, fmt: FrontmatterFormat, fm_start: int, blank: int, complete: bool
) -> Split | None:
    """Find the closing delimiter line after ``fm_start`` and build the split."""
    limit = min(len(text), fm_start + MAX_FRONTMATTER_BYTES + 8)
    needle = "\n" + delimiter
    index = fm_start - 1
    while True:
        index = text.find(needle, index, limit)
        if index < 0:
            break
        after = index + 4
        eol = text.find("\n", after)
        if eol != after and text[after : len(text) if eol < 0 else eol].strip(_SPACE):
            index += 1
            continue
        if eol < 0 and not complete:
            return None
        body_offset = len(text) if eol < 0 else eol + 1
        raw = _normalise(text[fm_start:index]) if index > fm_start else ""
        return fmt, raw, body_offset, blank + 2, blank
    if len(text) > limit:
        raise _too_large()
    if complete:
        raise _unclosed(delimiter)
    return None


def _normalise(raw: str) -> str:
    """CRLF to LF, and enforce the byte bound (cheaply: only long text can exceed it)."""
    if "\r" in raw:
        raw = raw.replace("\r\n", "\n").removesuffix("\r")
    if len(raw) * 4 > MAX_FRONTMATTER_BYTES and len(raw.encode("utf-8", "surrogatepass")) > (
        MAX_FRONTMATTER_BYTES
    ):
        raise _too_large()
    return raw


def _unclosed(delimiter: str) -> FrontmatterError:
    return FrontmatterError(
        "frontmatter_unclosed",
        f"the frontmatter opens with '{delimiter}' but is never closed; "
        f"add a '{delimiter}' line after it",
    )


__all__ = [
    "HEAD_BYTES",
    "MAX_FRONTMATTER_BYTES",
    "READ_CAP_BYTES",
    "Frontmatter",
    "FrontmatterError",
    "FrontmatterFormat",
    "Split",
    "check_text",
    "decode_skill_text",
    "read_frontmatter",
    "read_split",
    "split_frontmatter",
]
