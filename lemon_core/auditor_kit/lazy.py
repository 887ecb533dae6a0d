"""Regular expressions compiled on first use, not at import.

The auditors hold a hundred large patterns; compiling them at import cost every command that
loads the plugins (``lemon skill install`` included) tens of milliseconds. A
:func:`lazy_compile` pattern compiles itself the first time one of its methods is looked up
and from then on hands out the compiled pattern's bound methods directly.
"""

from __future__ import annotations

import re
from typing import Any, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


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
        return cast("re.Pattern[str]", found)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._source[:40]!r}…)"


def lazy_compile(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled the first time it is used."""
    return cast("re.Pattern[str]", LazyPattern(source, flags))


__all__ = ["LazyPattern", "lazy_compile"]
