"""Text as an agent reads it, whatever tricks hide it from a pattern: invisible characters
(zero-width, bidi controls, tag characters, soft hyphens; a zero-width joiner only
next to a Latin letter, as Persian and Indic scripts use it) dropped, compatibility forms
(full-width letters, mathematical letters, ligatures) folded by NFKC, and Latin look-alikes from Cyrillic or Greek
folded to Latin inside words that mix the scripts (``Ign\u043er\u0435`` is ``Ignore``;
a Russian word stays Russian). Base64 in prose is read as the text it decodes to.

:func:`needs_fold` is a cheap test: most texts hold none of these tricks and are read as
they are.
"""

from __future__ import annotations

import unicodedata

from lemon_core.auditor_kit import LineIndex, decoded_payloads
from lemon_core.auditor_kit.lazy import lazy_compile

#: Invisible in a rendered text: soft hyphen, combining grapheme joiner, zero-width and bidi
#: controls, word joiners, Mongolian vowel separator, byte-order mark, tag characters.
_INVISIBLE = lazy_compile("[\u00ad\u034f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                          "\u2066-\u206f\ufeff\U000e0000-\U000e007f]"
                          "|(?<=[A-Za-z])[\u200c\u200d]|[\u200c\u200d](?=[A-Za-z])")
#: The characters :func:`fold` drops or folds: invisible ones, tag characters, full-width
#: letters and digits (not the full-width punctuation every Chinese text holds),
#: mathematical letters (one character class: a fast scan).
_FOLDED = lazy_compile("[\u00ad\u034f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064"
                       "\u2066-\u206f\ufeff\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
                       "\U000e0000-\U000e007f\U0001d400-\U0001d7ff]")
_GREEK_CYRILLIC = lazy_compile("[\u0370-\u04ff]")
_JOINED = lazy_compile("[A-Za-z][\u200c\u200d]|[\u200c\u200d][A-Za-z]")
#: Compatibility forms folded by NFKC: full-width forms, letter-like symbols, enclosed and
#: mathematical alphanumerics, ligatures, super- and subscripts (NFKC of the whole text
#: would also decompose Thai and Lao vowels the lexicon writes composed).
_COMPAT = lazy_compile("[\uff00-\uffef\u2100-\u214f\u2460-\u24ff\ufb00-\ufb06\u2070-\u209f"
                       "\U0001d400-\U0001d7ff]+")
#: Cyrillic and Greek letters that look like Latin ones.
_LOOK_ALIKE = str.maketrans(
    "\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0456\u0458\u0455\u0501\u051b\u051d\u04bb"
    "\u04cf\u043a\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0423"
    "\u0406\u0408\u0405\u03b1\u03bf\u03bd\u03c1\u03b9\u03ba\u03c5\u0391\u0392\u0395\u0396"
    "\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7",
    "aeopcyxijsdqwhlkABEKMHOPCTXYIJSaovpikuABEZHIKMNOPTYX")
_MIXED_WORD = lazy_compile(r"\w*(?:[A-Za-z][\u0370-\u03ff\u0400-\u04ff]|"
                           r"[\u0370-\u03ff\u0400-\u04ff][A-Za-z])\w*")
#: A run of 40 or more base64 characters (a sentence's worth of encoded text).
_B64_RUN = lazy_compile(r"[A-Za-z0-9+/]{40,}={0,2}")


def needs_fold(text: str) -> bool:
    """Whether ``text`` holds a character :func:`fold` changes for reading (a scan for one
    class of characters; the mixed-script words are searched only where Greek or Cyrillic
    stands at all)."""
    if text.isascii():
        return False
    if _FOLDED.search(text) is not None:
        return True
    if ("\u200c" in text or "\u200d" in text) and _JOINED.search(text) is not None:
        return True
    return _GREEK_CYRILLIC.search(text) is not None and _MIXED_WORD.search(text) is not None


def fold(text: str) -> str:
    """``text`` as read: invisible characters gone, NFKC, look-alikes folded in mixed words.
    Line breaks are kept, so line numbers stay those of ``text``."""
    text = _INVISIBLE.sub("", text)
    text = _COMPAT.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return _MIXED_WORD.sub(lambda m: m.group().translate(_LOOK_ALIKE), text)


def fold_phrase(phrase: str) -> str:
    """A lexicon phrase folded like the text it is searched in."""
    return _COMPAT.sub(lambda m: unicodedata.normalize("NFKC", m.group()),
                       _INVISIBLE.sub("", phrase)).lower()


#: Marks each byte of a base64 run ``a``, any other `` `` (a run is found by ``bytes.find``,
#: in C: a pattern tried at every position of every text cost 100 ns a character).
_B64_MARKS = bytes(ord("a") if chr(b).isascii() and (chr(b).isalnum() or chr(b) == "+")
                   else ord(" ") for b in range(256))


def base64_lines(text: str, index: LineIndex) -> list[int]:
    """The (1-based) lines of ``text`` holding a run of 40 or more base64 letters and
    digits, found with a byte table and ``bytes.find`` (a non-ASCII character is one
    byte, so offsets agree); a path's slashes break a run."""
    marks = text.encode("ascii", "replace").translate(_B64_MARKS)
    out: list[int] = []
    at = marks.find(b"a" * 40)
    while at != -1:
        number = index.line_of(at)
        out.append(number)
        if number >= index.count:
            break
        at = marks.find(b"a" * 40, index.start_of(number + 1))
    return out


def decoded_prose(line: str) -> list[str]:
    """The texts that base64 runs of ``line`` decode to (an instruction hidden in prose)."""
    if len(line) < 40 or _B64_RUN.search(line) is None:
        return []
    return [found.text for found in decoded_payloads(line) if found.encoding == "base64"]


__all__ = ["base64_lines", "decoded_prose", "fold", "fold_phrase", "needs_fold"]
