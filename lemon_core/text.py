"""Is a string safe to put on one line of a listing, a prompt or a terminal?

Used for skill keys (folder names) and manifest text; it imports nothing heavy, since the
discovery walk runs it for every folder.
"""

from __future__ import annotations

import re

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


__all__ = ["SURROGATE", "unsafe_reason"]
