"""Line numbers and bounded excerpts of a file's text, and which lines hold which trigger words
(:func:`word_lines`: one search per text for the words of every auditor)."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from lemon_core.text import escape

#: The longest excerpt a finding carries (characters, before escaping).
EXCERPT_CHARS = 160


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower_same_length(text: str) -> str:
    """``text`` lower-cased, offsets kept: ``str.lower`` unless it changes the length (a few
    characters lower-case to two), then ASCII letters only."""
    lower = text.lower()
    return lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)


def line_starts(pieces: list[str]) -> Iterator[int]:
    """The offset of each of ``pieces`` (the text split at newlines) in the text, and then
    the offset one past the text's end (sums in C: no Python call per line)."""
    return itertools.accumulate(map((1).__add__, map(len, pieces)), initial=0)


class LineIndex:
    """Maps a character offset of ``text`` to its 1-based line number."""

    def __init__(self, text: str) -> None:
        starts = list(line_starts(text.split("\n")))
        starts.pop()  # the offset past the last line
        self._starts = starts

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def start_of(self, line: int) -> int:
        return self._starts[line - 1]

    @property
    def starts(self) -> list[int]:
        """The offset where each line starts (not to be changed)."""
        return self._starts

    @property
    def count(self) -> int:
        return len(self._starts)

    def lines_containing(self, lower: str, words: tuple[str, ...]) -> set[int]:
        """The numbers of the lines of ``lower`` (the text, lower-cased) holding any of
        ``words``: one substring search per word and hit, in C, instead of a test per line.
        The whole text is searched, however long: padding a file does not hide a word."""
        found = set()
        end = len(lower)
        for word in words:
            at = lower.find(word)
            while at != -1:
                number = self.line_of(at)
                found.add(number)
                at = lower.find(word, self._starts[number] if number < len(self._starts) else end)
        return found


def _trie_source(words: frozenset[str]) -> str:
    """A pattern that matches, where any of ``words`` starts, the longest word starting there.

    The words as a trie of nested alternatives, each alternative opening with a literal: the
    engine skips in C every position whose character starts no word, and at the others follows
    one path of the trie (an alternative whose first character differs is passed over at
    once). A flat alternation of 400 words tried each word at every position."""

    def branch(node: dict[str, dict]) -> str:  # type: ignore[type-arg]
        children = [re.escape(char) + branch(child) for char, child in sorted(node.items())
                    if char]
        if not children:
            return ""
        body = children[0] if len(children) == 1 else "(?:" + "|".join(children) + ")"
        return f"(?:{body})?" if "" in node else body

    root: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return branch(root)


@functools.lru_cache(maxsize=32)
def _check_words(words: frozenset[str]) -> None:
    if any(not word or "\n" in word for word in words):
        raise ValueError("the words searched for are non-empty and hold no newline")


@functools.lru_cache(maxsize=8)
def _word_trie(words: frozenset[str]) -> tuple[re.Pattern[str],
                                              dict[str, tuple[tuple[str, int], ...]]]:
    """The pattern of :func:`_trie_source` for ``words`` without their leading spaces (a
    word such as ``" cc"`` would make the search stop at every space of the text; it is
    found where ``"cc"`` is, then the spaces before it are checked) and, for each word the
    pattern can match, the ``(word, spaces)`` that start at the same place: the words that
    it begins with, each with the number of spaces that must stand before it."""
    _check_words(words)
    keys: dict[str, list[tuple[str, int]]] = {}
    for word in words:
        key = word.lstrip(" ") or word
        keys.setdefault(key, []).append((word, len(word) - len(key)))
    pattern = re.compile(_trie_source(frozenset(keys)))
    starting = {key: tuple(pair for end in range(1, len(key) + 1) if key[:end] in keys
                           for pair in keys[key[:end]])
                for key in keys}
    return pattern, starting


def _trie_word_lines(index: LineIndex, lower: str,
                     words: frozenset[str]) -> dict[str, set[int]]:
    """For each of ``words`` found in ``lower`` (the text, lower-cased), the numbers of the
    lines holding it — what :meth:`LineIndex.lines_containing` finds word by word, from one
    search for all the words: every place a word starts is visited once (the search resumes
    one character after each match, so words inside or overlapping others are found too)."""
    pattern, starting = _word_trie(words)
    search, line_of = pattern.search, index.line_of
    found: dict[str, set[int]] = {}
    match = search(lower)
    while match is not None:
        at = match.start()
        number = line_of(at)
        for word, spaces in starting[match.group()]:
            if spaces and (at < spaces or lower[at - spaces:at] != " " * spaces):
                continue
            lines = found.get(word)
            if lines is None:
                found[word] = {number}
            else:
                lines.add(number)
        match = search(lower, at + 1)
    return found


@functools.lru_cache(maxsize=8)
def _automaton(words: frozenset[str]) -> object | None:
    """An Aho-Corasick automaton of ``words`` (``pyahocorasick``, in C), or None where that
    package cannot be imported (then the trie pattern searches). It finds every occurrence of
    every word — inside and overlapping others, leading spaces included — in one pass over
    the text: four times faster than the engine trying the trie at every position."""
    _check_words(words)
    try:
        import ahocorasick
    except ImportError:  # pragma: no cover - a dependency; the trie is the fallback
        return None
    automaton = ahocorasick.Automaton(ahocorasick.STORE_ANY)
    for word in words:
        automaton.add_word(word, word)
    automaton.make_automaton()
    return automaton


def _automaton_word_lines(automaton: object, index: LineIndex,
                          lower: str) -> dict[str, set[int]]:
    """What :func:`_trie_word_lines` finds, from the automaton's matches (each reported at
    its last character, on the same line as its first: a word holds no newline)."""
    line_of = functools.partial(bisect.bisect_right, index.starts)  # LineIndex.line_of, inlined
    found: dict[str, set[int]] = {}
    for end, word in automaton.iter(lower):  # type: ignore[attr-defined]
        lines = found.get(word)
        if lines is None:
            found[word] = {line_of(end)}
        else:
            lines.add(line_of(end))
    return found


def _word_lines_once(index: LineIndex, lower: str, words: frozenset[str]) -> dict[str, set[int]]:
    automaton = _automaton(words)
    if automaton is None:
        return _trie_word_lines(index, lower, words)
    return _automaton_word_lines(automaton, index, lower)


#: A text whose distinct lines hold under this share of its characters is searched line by
#: distinct line (generated tables, repeated boilerplate). Counted in characters, not lines:
#: the blank lines of ordinary text repeat too, but searching them costs nothing, and mapping
#: every line back costs a step per line that only a repeat of some length pays for.
_DISTINCT_SHARE = 0.75
#: A shorter text is searched whole: finding its repeats costs about what they would.
_DISTINCT_FROM = 16_384


def _search_words(index: LineIndex, lower: str, words: frozenset[str]) -> dict[str, set[int]]:
    """For each of ``words`` found in ``lower`` (the text, lower-cased), the numbers of the
    lines holding it. A text that repeats much of itself is searched once per distinct
    line (a word holds no newline, so it is in a line exactly when it is in that line's
    copy) and the lines found are mapped back to every place they stand."""
    if len(lower) < _DISTINCT_FROM:
        return _word_lines_once(index, lower, words)
    lines = lower.split("\n")
    distinct = dict.fromkeys(lines)
    if len(distinct) == len(lines) or \
            sum(map(len, distinct)) + len(distinct) >= _DISTINCT_SHARE * len(lower):
        return _word_lines_once(index, lower, words)
    joined = "\n".join(distinct)
    found_once = _word_lines_once(LineIndex(joined), joined, words)
    wanted = {line for held in found_once.values() for line in held}
    order = {line: number for number, line in enumerate(distinct, 1) if number in wanted}
    places: dict[int, list[int]] = {number: [] for number in wanted}
    for number, line in enumerate(lines, 1):
        once = order.get(line)
        if once is not None:
            places[once].append(number)
    return {word: {number for once in held for number in places[once]}
            for word, held in found_once.items()}


class _Searched:
    """Every word any caller has asked about: the auditors of one bundle ask about the same
    texts for different words, and one search for all their words costs about what one
    search for some of them does. Which lines of a text hold them is kept by the bundle's
    :class:`~lemon_core.auditor_kit.texts.TextIndex`, not here."""

    def __init__(self) -> None:
        self.words: frozenset[str] = frozenset()
        #: The word sets already added (a set of a few: each caller asks with its own, again
        #: for every file; found here by its cached hash, not tested word by word).
        self._added: set[frozenset[str]] = set()

    def add(self, words: frozenset[str]) -> None:
        if words in self._added:
            return
        _check_words(words)
        if not words <= self.words:
            self.words |= words
        if len(self._added) < 64:
            self._added.add(words)


_SEARCHED = _Searched()

#: The text index of the bundle being audited (:mod:`lemon_core.auditor_kit.texts`: the audit
#: host sets it while the auditors run), or None.
CURRENT: ContextVar[Any] = ContextVar("lemon_bundle_texts", default=None)


def search_table(index: LineIndex, lower: str,
                 words: frozenset[str]) -> dict[str, frozenset[int]]:
    """For each of ``words`` found in ``lower``, the lines holding it (one search)."""
    return {word: frozenset(lines) for word, lines in _search_words(index, lower, words).items()}


def register_words(words: frozenset[str]) -> None:
    """Add ``words`` to those every text is searched for. An auditor registers its words
    when its module loads, so the first text is searched once for every auditor's words (a
    word first asked about later is added then, and the texts are searched again)."""
    _SEARCHED.add(words)


def word_lines(index: LineIndex, lower: str,
               words: frozenset[str]) -> dict[str, frozenset[int]]:
    """For each of ``words`` found in ``lower`` (the text, lower-cased, all of it: padding a
    file past any size does not hide a word), the numbers of the lines holding it: what
    :meth:`LineIndex.lines_containing` finds word by word. The words of every caller are
    searched together, once per text of the bundle being audited (its
    :class:`~lemon_core.auditor_kit.texts.TextIndex`; outside an audit, once per call)."""
    _SEARCHED.add(words)
    texts = CURRENT.get()
    if texts is not None:
        found = texts.table(index, lower, _SEARCHED.words)
    else:
        found = search_table(index, lower, _SEARCHED.words)
    return {word: lines for word, lines in found.items() if word in words}


def indexed(text: str) -> tuple[LineIndex, str]:
    """The :class:`LineIndex` of ``text`` and ``text`` lower-cased (:func:`lower_same_length`):
    made once per bundle being audited (its text index), so every auditor shares them."""
    texts = CURRENT.get()
    if texts is not None:
        return texts.indexed(text)  # type: ignore[no-any-return]
    return LineIndex(text), lower_same_length(text)


def forget() -> None:
    """Nothing of the texts seen outlives the audit of their bundle (its text index); kept for
    callers that measure a first audit (compiled patterns stay either way)."""


def excerpt(text: str, start: int = 0, end: int | None = None, *,
            limit: int = EXCERPT_CHARS) -> str:
    """The piece ``text[start:end]`` on one line, at most ``limit`` characters (cut pieces end
    in ``…``), with control, bidi and invisible characters escaped: safe to print or to hand
    to an agent."""
    piece = text[start:end] if end is not None else text[start:]
    piece = " ".join(piece.split()) if ("\n" in piece or "\t" in piece or "\r" in piece) else piece.strip()
    if len(piece) > limit:
        piece = piece[: limit - 1] + "…"
    return escape(piece)


__all__ = ["CURRENT", "EXCERPT_CHARS", "LineIndex", "excerpt", "forget", "indexed",
           "lower_same_length", "register_words", "search_table", "word_lines"]
