"""One bundle's texts as the auditors search them: the :class:`TextIndex`.

The audit host builds one :class:`TextIndex` for every bundle it audits, keeps it in the
bundle's ``index`` (``bundle.index["texts"]``) and makes it the current one while the auditors
run (:func:`audited`). Every auditor that asks for a text's line index (:func:`lines.indexed
<lemon_core.auditor_kit.lines.indexed>`) or for the lines holding the registered trigger words
(:func:`lines.word_lines <lemon_core.auditor_kit.lines.word_lines>`) gets them from it, so each
text is indexed and searched once per bundle whichever auditor asks first. Nothing outlives
the bundle: no module-level cache is keyed by a file's text, two bundles never share an entry,
and two audits in two threads each see their own index.

Outside an audit (an auditor called directly, a test) there is no current index: the same
functions compute what they are asked for and keep nothing. An auditor holding the bundle may
ask :func:`texts_of` for its index directly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from lemon_core.auditor_kit import lines
from lemon_core.auditor_kit.lines import LineIndex, lower_same_length

#: Where a bundle keeps its text index (``AuditBundle.index``).
SLOT = "texts"


class TextIndex:
    """The line index, lower-cased copy and trigger-word lines of each text of one bundle."""

    def __init__(self) -> None:
        self._indexed: dict[str, tuple[LineIndex, str]] = {}
        #: lower-cased text -> (the word set searched, word -> the lines holding it).
        self._found: dict[str, tuple[frozenset[str], dict[str, frozenset[int]]]] = {}

    def indexed(self, text: str) -> tuple[LineIndex, str]:
        """``text``'s :class:`LineIndex` and ``text`` lower-cased (made once per bundle)."""
        kept = self._indexed.get(text)
        if kept is None:
            kept = self._indexed[text] = (LineIndex(text), lower_same_length(text))
        return kept

    def table(self, index: LineIndex, lower: str,
              words: frozenset[str]) -> dict[str, frozenset[int]]:
        """For each of ``words`` (every registered word) found in ``lower``, its lines: one
        search per text, again only when a word was registered since."""
        kept = self._found.get(lower)
        if kept is None or kept[0] is not words and not words <= kept[0]:
            kept = self._found[lower] = (words, lines.search_table(index, lower, words))
        return kept[1]


def texts_of(bundle: Any) -> TextIndex:
    """The text index of ``bundle`` (made when the bundle has none, and kept in it)."""
    slot = getattr(bundle, "index", None)
    if not isinstance(slot, dict):
        return TextIndex()
    found = slot.get(SLOT)
    if not isinstance(found, TextIndex):
        found = slot[SLOT] = TextIndex()
    return found


@contextlib.contextmanager
def audited(bundle: Any) -> Iterator[TextIndex]:
    """While the auditors run on ``bundle``: its text index is the current one (what
    :func:`lines.indexed <lemon_core.auditor_kit.lines.indexed>` and :func:`lines.word_lines
    <lemon_core.auditor_kit.lines.word_lines>` use)."""
    texts = texts_of(bundle)
    token = lines.CURRENT.set(texts)
    try:
        yield texts
    finally:
        lines.CURRENT.reset(token)


__all__ = ["SLOT", "TextIndex", "audited", "texts_of"]
