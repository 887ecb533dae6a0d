"""Is a string safe to put on one line of a listing, a prompt or a terminal, and how to show
one that is not.

:func:`unsafe_reason` is used for skill keys (folder names) and manifest text; it imports nothing
heavy, since the discovery walk runs it for every folder. :func:`identifier_reason` is the
stricter rule for what names a skill (keys and manifest ``name`` values): no invisible character
either, and :func:`lookalike_form` is what two such names are compared by to warn about twins.
:func:`escape` is the one way anything that came from the filesystem or a config file is printed
for a person (human output and stderr; JSON stays exact).
"""

from __future__ import annotations

import re
import unicodedata

_LINE_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")
#: C0, DEL, C1 and the bidirectional formatting characters.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: Lone surrogates (only the pure-Python YAML reader lets ``"\\ud800"`` through): not UTF-8.
SURROGATE = re.compile("[\ud800-\udfff]")


def unsafe_reason(value: str) -> tuple[str, str] | None:
    """Why ``value`` is not single-line safe text, as ``(code, reason)``; None when it is."""
    if value.isprintable():  # fast path: no control, format or line-break characters at all
        return None
    if _LINE_BREAKS.search(value):
        return "multiline_value", "must be a single line"
    if SURROGATE.search(value):
        return "unsafe_characters", "is not valid UTF-8 (it holds a lone surrogate)"
    match = _UNSAFE.search(value)
    if match:
        char = f"U+{ord(match.group()):04X}"
        return "unsafe_characters", f"contains the control or bidi character {char}; remove it"
    return None


#: Invisible characters: Unicode's whole format category (Cf: soft hyphen, zero-width space,
#: joiners, word joiner, BOM, bidi controls, tags...) and the other default-ignorable code
#: points that render as nothing (combining grapheme joiner, Hangul fillers, variation
#: selectors). The Cf ranges follow Unicode 15 (tests check them against ``unicodedata``).
_INVISIBLE = re.compile(
    "[\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
    "\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]"
)


def identifier_reason(value: str) -> tuple[str, str] | None:
    """Why ``value`` cannot name a skill (a key or a manifest ``name``), as ``(code, reason)``;
    None when it can. :func:`unsafe_reason`'s rules, and no invisible character: five
    ``deploy`` folders that differ by a zero-width space must not list side by side. A
    zero-width joiner inside an emoji sequence (``👩‍💻``) is part of a visible picture and stays."""
    problem = unsafe_reason(value)
    if problem is not None or value.isascii():
        return problem
    for match in _INVISIBLE.finditer(value):
        if match.group() != "\u200d" or not _joins_emoji(match):
            break
    else:
        return None
    char = match.group()
    label = unicodedata.name(char, "")
    label = f"U+{ord(char):04X}" + (f" {label}" if label else "")
    return "unsafe_characters", f"contains the invisible character {label}; remove it"


def lookalike_form(value: str) -> str:
    """What two names are compared by to tell they would look alike: invisible characters
    dropped, Unicode compatibility forms folded (NFKC: ``ｄｅｐｌｏｙ``, ``ﬁ``) and case folded."""
    if value.isascii():
        return value.lower()
    text = _INVISIBLE.sub("", value)
    return unicodedata.normalize("NFKC", text).casefold()


#: What :func:`escape` rewrites: C0, DEL, C1, every format character (Unicode category Cf:
#: bidi controls, zero-width characters, soft hyphen, tags…), line and paragraph separators,
#: lone surrogates and unassigned or private-use code points are left to ``isprintable``.
_ESCAPED = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)


def _joins_emoji(match: re.Match[str]) -> bool:
    """A zero-width joiner inside an emoji sequence (👨‍👩‍👧) is part of the picture."""
    text, start = match.string, match.start()
    before = text[start - 1] if start > 0 else ""
    after = text[start + 1] if start + 1 < len(text) else ""
    return before > "\u2000" and after > "\u2000" and all(
        unicodedata.category(char) in ("So", "Sk", "Mn") for char in (before, after)
    )


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code == 0x200D and _joins_emoji(match):
        return "\u200d"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(value: object) -> str:
    """``value`` as text safe for a terminal: control, bidi, zero-width and other invisible
    characters are shown as ``\\x..`` / ``\\u....`` / ``\\U........``, and a backslash that
    could be mistaken for one of those is doubled. Everything else (accents, CJK, emoji
    sequences, their joiners included) is kept as it is.

    Use it for every path, name and message that came from the filesystem or a config file, in
    human output and on stderr. JSON output stays exact: do not escape what goes into JSON.
    """
    text = value if isinstance(value, str) else str(value)
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text  # the common case, at the cost of two C-level scans
    text = text.replace("\\", "\\\\") if "\\" in text else text
    return _ESCAPED.sub(_escape_char, text)


#: What :func:`defang` shows as escapes: what :func:`escape` escapes but line feeds and tabs
#: (a carriage return is kept before a line feed), and the default-ignorable code points that
#: ``isprintable`` lets through though they render as nothing: combining grapheme joiner,
#: Hangul fillers, Khmer and Mongolian invisible vowels and selectors, variation selectors
#: (runs of them smuggle bytes behind an emoji; one after a visible character is kept).
_DEFANGED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890"
    "\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]"
)
#: The printable (``isprintable``) members of :data:`_DEFANGED`, searched only in non-ASCII
#: text that passed ``isprintable``.
_PRINTABLE_HIDDEN = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180d\u180f\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]"
)
#: The one-line note :func:`defang` adds (``note=True``) when it escaped anything.
NOTE = ("[lemon: {count} invisible or control character{s} in this text {are} shown as "
        "escapes such as \\u202e; the original hides {them}]")


def _kept(match: re.Match[str]) -> bool:
    """Whether a defanged character is kept as it is: a carriage return before a line feed,
    a zero-width joiner inside an emoji sequence, one presentation selector (U+FE0E/U+FE0F)
    right after a visible character."""
    char, text, start = match.group(), match.string, match.start()
    if char == "\r":
        return text[start + 1:start + 2] == "\n"
    if char == "\u200d":
        return _joins_emoji(match)
    if char in "\ufe0e\ufe0f" and start > 0:
        before = text[start - 1]
        return before.isprintable() and not _DEFANGED.match(before) and before != " "
    return False


def defang(value: str, *, note: bool = False) -> str:
    """``value`` as text to serve to an agent (a model or the client showing it): every
    control, bidi, zero-width, tag, variation-selector run or other invisible character is
    shown as ``\\x..`` / ``\\u....`` / ``\\U........``; line breaks and tabs are kept, and
    backslashes are not doubled, so the text keeps its layout but can no longer hide, reorder
    or forge what is shown. With ``note`` and anything escaped, one line saying how many
    (:data:`NOTE`) is added at the end: after a blank line for text of several lines, after a
    space for one line (a description). The note itself is plain ASCII, so defanging defanged
    text again changes nothing and adds no second note.

    This is the one function for every text lemon serves to an agent (skills servers, the
    gateway, the agent API). Fast path: text with nothing to show is returned as it is after
    two C-level scans (``isprintable`` on the text without its line feeds and tabs, and for
    non-ASCII text one search for the few printable invisible characters).
    """
    plain = value.replace("\n", "").replace("\t", "") if "\n" in value or "\t" in value \
        else value
    if plain.isprintable() and (plain.isascii() or not _PRINTABLE_HIDDEN.search(plain)):
        return value
    count = 0

    def shown(match: re.Match[str]) -> str:
        nonlocal count
        if _kept(match):
            return match.group()
        count += 1
        return _escape_char(match)

    text = _DEFANGED.sub(shown, value)
    if note and count:
        one = count == 1
        line = NOTE.format(count=count, s="" if one else "s", are="is" if one else "are",
                           them="it" if one else "them")
        text += ("\n" if text.endswith("\n") else "\n\n" if "\n" in text else " ") + line
    return text


__all__ = ["NOTE", "SURROGATE", "defang", "escape", "identifier_reason", "lookalike_form",
           "unsafe_reason"]
