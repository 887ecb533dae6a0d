"""Which folder names can be skill keys, and which keys would look alike to a reader.

A key is the skill folder's name: it reaches prompts, listings and terminals, so it must be one
line of visible text (no control, bidi or invisible characters: :func:`~lemon_core.text.
identifier_reason`) of at most :data:`MAX_KEY_BYTES` bytes. Two different keys that differ only
by letter case, invisible characters or Unicode compatibility forms
(:func:`~lemon_core.text.lookalike_form`) get a ``lookalike_keys`` warning.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from lemon_core.models import Diagnostic
from lemon_core.text import identifier_reason, lookalike_form

MAX_KEY_BYTES = 255


class _Found(Protocol):
    """What :func:`lookalike_warnings` reads of a found skill (``walk.FoundSkill``)."""

    key: str
    dir: str


def key_problem(name: str) -> str | None:
    """Why a folder name cannot be a key (undecodable, control, bidi or invisible characters,
    too long), or None."""
    if name.isascii() and name.isprintable() and len(name) <= MAX_KEY_BYTES:
        return None  # the common case, in two C-level scans
    unsafe = identifier_reason(name)
    if unsafe is not None:  # the caller says what to do: rename the folder
        return unsafe[1].removesuffix("; remove it")
    if len(name.encode("utf-8")) > MAX_KEY_BYTES:
        return f"is longer than {MAX_KEY_BYTES} bytes"
    return None


def lookalike_warnings(found: Iterable[_Found]) -> list[Diagnostic]:
    """A warning for each key that differs from an earlier one only in what a reader cannot
    see or tell apart (case, invisible characters, compatibility forms)."""
    first: dict[str, _Found] = {}
    keys: set[str] = set()
    out = []
    for skill in found:
        if skill.key in keys:  # the same key again: shadowing, reported as such
            continue
        keys.add(skill.key)
        earlier = first.setdefault(lookalike_form(skill.key), skill)
        if earlier.key != skill.key:
            out.append(Diagnostic(
                skill.dir, "warning", "lookalike_keys",
                f"the key '{skill.key}' looks like the key '{earlier.key}' ({earlier.dir}): "
                "they differ only by letter case, invisible characters or Unicode "
                "compatibility forms; rename one so people and agents can tell them apart"))
    return out


__all__ = ["MAX_KEY_BYTES", "key_problem", "lookalike_warnings"]
