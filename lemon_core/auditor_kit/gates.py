"""A pattern and its trigger words, declared together: the words a text must hold for the
pattern to match it, so a text without them is not searched at all.

A rule's pattern is often a long alternation the engine tries at every place of a line;
most lines an auditor looks at hold a word of the rule's family (``curl``, ``exec``) and
none of what the pattern needs besides (a ``|`` to pipe into, a ``$(`` to run). Each
:class:`Gated` pattern names *groups* of lower-case words: every match of the pattern holds
at least one word of each group (``tests/auditor_kit/test_gates.py`` checks this of every
declared pattern with strings generated from the pattern itself), so testing the words —
substring tests in C — decides that a line cannot match before the engine is asked.

The words are looked for in ``str.lower()`` of the text, as the auditors' word searches do.
``re.IGNORECASE`` also matches four characters to ASCII letters that ``lower`` leaves alone
or lengthens (``ı`` and ``İ`` to ``i``, ``ſ`` to ``s``; ``K`` lowers to ``k``): a line
spelling a command with them (``pıp``) is not searched, as before these gates.
"""

from __future__ import annotations

import re
from collections.abc import Iterator


class Gated:
    """``pattern`` with its trigger ``groups`` (each a tuple of lower-case words)."""

    __slots__ = ("groups", "pattern")

    def __init__(self, pattern: re.Pattern[str], *groups: tuple[str, ...]) -> None:
        if not groups or not all(groups) or any(w != w.lower() or not w for g in groups
                                                  for w in g):
            raise ValueError("each group holds lower-case, non-empty words")
        self.pattern = pattern
        self.groups = groups

    def opens(self, lower: str) -> bool:
        """Whether ``lower`` (a text, lower-cased) holds a word of every group."""
        for group in self.groups:
            for word in group:
                if word in lower:
                    break
            else:
                return False
        return True

    def finditer(self, text: str, lower: str | None = None) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text)``, or nothing when ``text`` lacks the trigger words."""
        if not self.opens(text.lower() if lower is None else lower):
            return iter(())
        return self.pattern.finditer(text)

    def search(self, text: str, lower: str | None = None) -> re.Match[str] | None:
        if not self.opens(text.lower() if lower is None else lower):
            return None
        return self.pattern.search(text)


__all__ = ["Gated"]
