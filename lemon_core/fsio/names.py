"""The one portable-name rule: a name lemon writes must mean the same file on every system.

:func:`file_name_problem` is the rule for every path component of a skill bundle (each file
and folder name): no control, bidi or invisible character (:func:`~lemon_core.text.
identifier_reason`, so ``.g<U+200C>it`` is not a second ``.git``), none of the characters
Windows reserves (``< > : " | ? *``), no trailing dot or space (Windows drops them), no device
name (``CON``, ``NUL``, ``COM1``…, with or without an extension), Unicode normal form C (macOS
would store another name) and at most :data:`MAX_NAME_BYTES` bytes.

:func:`skill_key_problem` is the rule for the key a skill is installed under (its folder
name): the file-name rule, no leading dot, at most :data:`MAX_KEY_CHARS` characters (the Agent
Skills standard's limit) and no Unicode compatibility form (full-width ``ＡＢＣ`` is ``ABC``
to anyone reading it). Listing stays more lenient (:mod:`lemon_core.catalog.keys`): a skill a
person put by hand is still found, and ``lemon skill lint`` says what the standard wants.
"""

from __future__ import annotations

import unicodedata

from lemon_core.text import identifier_reason

#: The characters Windows refuses in a file name (``:`` also names an NTFS stream).
WINDOWS_RESERVED = frozenset('<>:"|?*')
#: Names Windows reserves for devices, with or without an extension (``nul.txt``); the
#: superscript digits are devices too on current Windows.
RESERVED_DEVICES = frozenset({
    "con", "prn", "aux", "nul", "conin$", "conout$",
    *(f"com{d}" for d in "123456789\u00b9\u00b2\u00b3"),
    *(f"lpt{d}" for d in "123456789\u00b9\u00b2\u00b3"),
})
MAX_NAME_BYTES = 255
MAX_KEY_CHARS = 64


def file_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be one path component of a skill bundle, or None."""
    if not name:
        return "is empty"
    reason = identifier_reason(name)
    if reason is not None:
        return reason[1].removesuffix("; remove it")
    if name in (".", "..") or "/" in name or "\\" in name:
        return "is a path step or holds a separator"
    bad = sorted(set(name) & WINDOWS_RESERVED)
    if bad:
        shown = " ".join(bad)
        return f"holds {shown} (characters Windows reserves in file names)"
    if name.endswith((".", " ")):
        return "ends with a dot or a space (Windows drops them)"
    if name.split(".", 1)[0].rstrip(" ").lower() in RESERVED_DEVICES:
        return "is a device name on Windows (CON, NUL, COM1…)"
    if not name.isascii() and unicodedata.normalize("NFC", name) != name:
        return "is not in Unicode normal form C (macOS would store another name)"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


def skill_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be the folder name a skill is installed under, or None."""
    problem = file_name_problem(key)
    if problem is not None:
        return problem
    if key.startswith("."):
        return "starts with a dot (a hidden folder is never a skill)"
    if len(key) > MAX_KEY_CHARS:
        return (f"has {len(key)} characters; a skill name has at most {MAX_KEY_CHARS} "
                f"(the Agent Skills standard)")
    if not key.isascii() and unicodedata.normalize("NFKC", key) != key:
        return ("holds Unicode compatibility forms (full-width letters, ligatures…) that read "
                f"as {unicodedata.normalize('NFKC', key)!r}")
    return None


__all__ = ["MAX_KEY_CHARS", "MAX_NAME_BYTES", "RESERVED_DEVICES", "WINDOWS_RESERVED",
           "file_name_problem", "skill_key_problem"]
