"""Checks for strings that end up in listings, prompts and terminals."""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, and the bidirectional formatting characters.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def unsafe_reason(value: str, *, max_bytes: int) -> str | None:
    """Why ``value`` is not a safe single-line string (None when it is).

    Safe: non-empty, valid UTF-8 (no lone surrogates, as undecodable file names carry), no
    control or bidirectional formatting characters (so no line breaks), at most ``max_bytes``.
    """
    if not value:
        return "is empty"
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    match = _UNSAFE.search(value)
    if match:
        return f"contains the control or bidirectional character U+{ord(match.group()):04X}"
    if size > max_bytes:
        return f"is {size} bytes long, more than {max_bytes}"
    return None


__all__ = ["unsafe_reason"]
