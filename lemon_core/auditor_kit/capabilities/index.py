"""One parse per file per bundle: the parsed index auditors share through the bundle.

The host builds a fresh :class:`~lemon_core.protocols.AuditBundle` for every audit; its
``index`` dictionary lives exactly as long as that bundle. :func:`python_tree` parses a file
the first time any auditor asks for it and keeps the tree (or why it does not parse) there;
:func:`facts` does the same for the capability facts derived from a file. No module-level
cache: two bundles never share an entry, and memory is freed with the bundle.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, TypeVar

#: Bytes of Python source parsed at most (a larger file keeps to the line rules).
MAX_PARSE_CHARS = 1_000_000

T = TypeVar("T")


def _slot(bundle: Any, name: str) -> dict[Any, Any]:
    index = getattr(bundle, "index", None)
    if not isinstance(index, dict):
        return {}
    return index.setdefault(name, {})  # type: ignore[no-any-return]


def python_tree(bundle: Any, key: Any, text: str
                ) -> tuple[ast.Module | None, str | None, int | None]:
    """``(tree, None, None)`` for the Python source ``text`` (``key`` names it within the
    bundle: a path, or a path and a fence's first line), or ``(None, why, line)``."""
    slot = _slot(bundle, "python-ast")
    found = slot.get(key)
    if found is None:
        from lemon_core.auditor_kit.capabilities.python import parse

        if len(text) > MAX_PARSE_CHARS:
            found = (None, f"larger than {MAX_PARSE_CHARS} characters", None)
        else:
            found = parse(text)
        slot[key] = found
    return found  # type: ignore[no-any-return]


def derived(bundle: Any, name: str, key: Any, make: Callable[[], T]) -> T:
    """``make()`` once per bundle for ``(name, key)``."""
    slot = _slot(bundle, name)
    if key not in slot:
        slot[key] = make()
    return slot[key]  # type: ignore[no-any-return]


__all__ = ["MAX_PARSE_CHARS", "derived", "python_tree"]
