"""Regular expressions compiled on first use, not at import.

The auditors hold a hundred large patterns; compiling them at import cost every command that
loads the plugins (``lemon skill install`` included) tens of milliseconds. A
:func:`lazy_compile` pattern compiles itself the first time one of its methods is looked up
and from then on hands out the compiled pattern's bound methods directly — but for
``search`` and ``finditer``, which search a text of :data:`LONG_TEXT` characters or more only
where a match can start (:mod:`lemon_core.auditor_kit.starts`; the same matches, found in a
fraction of the time).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")
#: Texts this long are searched from the places a match can start only (below it, the
#: Python around a start search costs more than the engine trying every position).
LONG_TEXT = 64


class LazyPattern:
    """Stands for ``re.compile(source, flags)`` until it is first used."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags

    def compiled(self) -> re.Pattern[str]:
        found = self.__dict__.get("_compiled")
        if found is None:
            found = re.compile(self._source, self._flags)
            self.__dict__["_compiled"] = found
            for name in _METHODS:  # later look-ups find these without __getattr__
                self.__dict__[name] = getattr(found, name)
            self.__dict__["search"] = self._search
            self.__dict__["finditer"] = self._finditer
        return cast("re.Pattern[str]", found)

    def _starts(self) -> Any:
        """The :func:`~lemon_core.auditor_kit.starts.start_search` of this pattern, or None
        when it would not pay (then a long text is searched as any other)."""
        found = self.__dict__.get("_start_search", False)
        if found is False:
            from lemon_core.auditor_kit.starts import start_search
            from lemon_core.plain import plain

            found = None if plain("search") else start_search(
                self.__dict__["_compiled"], self._source, self._flags)
            self.__dict__["_start_search"] = found
        return found

    def _search(self, string: str, pos: int = 0,
                endpos: int = sys.maxsize) -> re.Match[str] | None:
        if len(string) >= LONG_TEXT and isinstance(string, str):
            starts = self._starts()
            if starts is not None:
                return starts.search(string, pos, endpos)
        return self.__dict__["_compiled"].search(string, pos, endpos)

    def _finditer(self, string: str, pos: int = 0,
                  endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        if len(string) >= LONG_TEXT and isinstance(string, str):
            starts = self._starts()
            if starts is not None:
                return starts.finditer(string, pos, endpos)
        return self.__dict__["_compiled"].finditer(string, pos, endpos)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.compiled()
        method = self.__dict__.get(name)  # search and finditer: this pattern's own
        return method if method is not None else getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source[:40]!r}…)"


def lazy_compile(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled the first time it is used."""
    return cast("re.Pattern[str]", LazyPattern(source, flags))


__all__ = ["LONG_TEXT", "LazyPattern", "lazy_compile"]
