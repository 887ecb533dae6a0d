"""Line numbers and bounded excerpts of a file's text."""

from __future__ import annotations

import bisect
import functools
import itertools
import re

from lemon_core.text import escape

#: Past this many characters (256 Ki) a file is searched for the core words of a rule family
#: only.
FULL_SEARCH_CHARS = 1 << 18
#: The longest excerpt a finding carries (characters, before escaping).
EXCERPT_CHARS = 160


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lower_same_length(text: str) -> str:
    """``text`` lower-cased, offsets kept: ``str.lower`` unless it changes the length (a few
    characters lower-case to two), then ASCII letters only."""
    lower = text.lower()
    return lower if len(lower) == len(text) else text.translate(_ASCII_LOWER)


class LineIndex:
    """Maps a character offset of ``text`` to its 1-based line number."""

    def __init__(self, text: str) -> None:
        starts = list(itertools.accumulate(map(len, text.split("\n")), lambda at, n: at + n + 1,
                                           initial=0))
        starts.pop()  # the offset past the last line
        self._starts = starts

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)

    def start_of(self, line: int) -> int:
        return self._starts[line - 1]

    @property
    def count(self) -> int:
        return len(self._starts)

    def lines_containing(self, lower: str, words: tuple[str, ...], *,
                         core: tuple[str, ...] | None = None) -> set[int]:
        """The numbers of the lines of ``lower`` (the text, lower-cased) holding any of
        ``words``: one substring search per word and hit, in C, instead of a test per line.

        A text over :data:`FULL_SEARCH_CHARS` is searched for every word in its first part
        and, past it, for the ``core`` words only (all of ``words`` when not given): the cost
        of a search is the text's length times the number of words."""
        if core is not None and len(lower) > FULL_SEARCH_CHARS:
            found = self.lines_containing(lower[:FULL_SEARCH_CHARS], words)
            found |= self.lines_past_head(lower, core)
            return found
        found = set()
        end = len(lower)
        for word in words:
            at = lower.find(word)
            while at != -1:
                number = self.line_of(at)
                found.add(number)
                at = lower.find(word, self._starts[number] if number < len(self._starts) else end)
        return found

    def lines_past_head(self, lower: str, words: tuple[str, ...]) -> set[int]:
        """The lines holding any of ``words`` where it reaches the end of the first
        :data:`FULL_SEARCH_CHARS` characters of ``lower`` or lies past it: what a text over
        that size is searched for beyond what :func:`word_lines` searches."""
        found: set[int] = set()
        for word in words:
            at = lower.find(word, FULL_SEARCH_CHARS - len(word))
            while at != -1:
                number = self.line_of(at)
                found.add(number)
                at = lower.find(word, self._starts[number] if number < len(self._starts)
                                else len(lower))
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


@functools.lru_cache(maxsize=8)
def _word_trie(words: frozenset[str]) -> tuple[re.Pattern[str], dict[str, tuple[str, ...]]]:
    """The pattern of :func:`_trie_source` and, for each word it can match, the words that
    start at the same place: that word and those of ``words`` that begin it."""
    if any(not word or "\n" in word for word in words):
        raise ValueError("the words searched for are non-empty and hold no newline")
    pattern = re.compile(_trie_source(words))
    starting = {word: tuple(other for other in words if word.startswith(other))
                for word in words}
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
        for word in starting[match.group()]:
            lines = found.get(word)
            if lines is None:
                found[word] = {number}
            else:
                lines.add(number)
        match = search(lower, at + 1)
    return found


#: Whitespace-free tokens longer than this are searched every time, never remembered.
_TOKEN_CHARS = 64
#: How many tokens :class:`_Memory` remembers before it starts again.
_TOKEN_MEMORY = 200_000


class _Memory:
    """What the tokens seen so far hold, for every key any caller has asked about (the keys
    of every word set are searched together, so the auditors of one bundle share one search
    per text)."""

    def __init__(self) -> None:
        self.keys: frozenset[str] = frozenset()
        self.seen: set[str] = set()  # tokens searched, holding a key or not
        self.holders: dict[str, list[str]] = {}  # the tokens among them holding keys
        self.holding: set[str] = set()  # the same tokens, as a set
        self.recent: dict[str, frozenset[str]] = {}  # text -> keys present, the last texts

    def present(self, lower: str, keys: frozenset[str]) -> frozenset[str]:
        """Which of ``keys`` (whitespace-free) occur in ``lower``."""
        if not keys <= self.keys or len(self.seen) > _TOKEN_MEMORY:
            union = self.keys | keys
            self.__init__()  # type: ignore[misc]
            self.keys = union
        found = self.recent.get(lower)
        if found is not None:
            return found
        tokens = frozenset(lower.split())
        present: set[str] = set()
        holders = self.holders
        for token in tokens & self.holding:
            present.update(holders[token])
        novel = list(tokens - self.seen)
        if novel:
            self._search(novel, present)
        result = frozenset(present)
        if len(self.recent) >= 64:
            self.recent.pop(next(iter(self.recent)))
        self.recent[lower] = result
        return result

    def _search(self, novel: list[str], present: set[str]) -> None:
        """Search ``novel`` tokens (whitespace-free) for the keys, remember what each holds
        (the short ones) and add what they hold to ``present``: one search of the tokens
        joined (:func:`_word_trie`) finds every place a key starts."""
        pattern, starting = _word_trie(self.keys)
        joined = "\n".join(novel)
        search, rfind, find = pattern.search, joined.rfind, joined.find
        size = len(joined)
        held_by: dict[str, list[str]] = {}
        match = search(joined)
        while match is not None:
            at = match.start()
            begin = rfind("\n", 0, at) + 1
            end = find("\n", at)
            held_by.setdefault(joined[begin:end if end != -1 else size], []).extend(
                starting[match.group()])
            match = search(joined, at + 1)
        for token, held in held_by.items():
            present.update(held)
            if len(token) <= _TOKEN_CHARS:
                self.holders[token] = held
                self.holding.add(token)
        if max(map(len, novel)) <= _TOKEN_CHARS:
            self.seen.update(novel)
        else:
            self.seen.update(token for token in novel if len(token) <= _TOKEN_CHARS)


_MEMORY = _Memory()


@functools.lru_cache(maxsize=32)
def _parts(words: frozenset[str]) -> tuple[frozenset[str], dict[str, list[str]], tuple[str, ...]]:
    """The key of each of ``words`` — its longest whitespace-free part (``"pip install"`` is
    found where ``install`` is): a word can be in a text only where its key is — the words
    of each key, and the words of blanks only."""
    if any(not word or "\n" in word for word in words):
        raise ValueError("the words searched for are non-empty and hold no newline")
    by_key: dict[str, list[str]] = {}
    blank = []
    for word in sorted(words):
        pieces = word.split()
        if not pieces:
            blank.append(word)
            continue
        by_key.setdefault(max(pieces, key=len), []).append(word)
    return frozenset(by_key), by_key, tuple(blank)


@functools.lru_cache(maxsize=64)
def _repetitive(lower: str) -> bool:
    """Whether ``lower``'s distinct tokens are under a third of it, judged on its first 4 Ki
    characters (generated tables, repeated boilerplate): then searching the tokens beats
    searching the text. Either search finds the same lines; 16 of the public corpus's 3,760
    SKILL.md files are repetitive."""
    if len(lower) < 4096:
        return False
    sample = lower[:4096]
    return sum(map(len, set(sample.split()))) * 3 < len(sample)


def _search_words(index: LineIndex, lower: str, words: frozenset[str]) -> dict[str, set[int]]:
    """For each of ``words`` found in ``lower``, the numbers of the lines holding it. A text
    that is not :func:`_repetitive` is searched once for all the words
    (:func:`_trie_word_lines`). In a repetitive one a word can only be in the text if its key
    (:func:`_parts`) is in one of the text's distinct tokens; the keys are searched in those
    all at once (what a token holds is remembered across texts, for the tokens of ordinary
    prose recur), and only the words whose key is there are looked for, word by word, in the
    text itself."""
    if not _repetitive(lower):
        return _trie_word_lines(index, lower, words)
    keys, by_key, blank = _parts(words)
    present = _MEMORY.present(lower, keys) if keys else frozenset()
    candidates = set(blank)
    for key in present & keys:
        candidates.update(by_key[key])
    found: dict[str, set[int]] = {}
    for word in candidates:
        lines = index.lines_containing(lower, (word,))
        if lines:
            found[word] = lines
    return found


class _Searched:
    """Every word any caller has asked about, and which lines of the last texts hold them:
    the auditors of one bundle ask about the same texts for different words, and one search
    for all their words costs about what one search for some of them does."""

    def __init__(self) -> None:
        self.words: frozenset[str] = frozenset()
        self.texts: dict[str, dict[str, frozenset[int]]] = {}

    def table(self, index: LineIndex, head: str, words: frozenset[str]) -> dict[str, frozenset[int]]:
        if not words <= self.words:
            self.words |= words
            self.texts.clear()
        found = self.texts.get(head)
        if found is None:
            found = {word: frozenset(lines)
                     for word, lines in _search_words(index, head, self.words).items()}
            if len(self.texts) >= 64:
                self.texts.pop(next(iter(self.texts)))
            self.texts[head] = found
        return found


_SEARCHED = _Searched()


def word_lines(index: LineIndex, lower: str,
               words: frozenset[str]) -> dict[str, frozenset[int]]:
    """For each of ``words`` found in the first :data:`FULL_SEARCH_CHARS` characters of
    ``lower`` (the text, lower-cased; all of it when shorter), the numbers of the lines
    holding it: what :meth:`LineIndex.lines_containing` finds word by word in that part. The
    words of every caller are searched together, once per text (:class:`_Searched`)."""
    _parts(words)  # the words are checked whatever else has been asked
    found = _SEARCHED.table(index, lower[:FULL_SEARCH_CHARS], words)
    return {word: lines for word, lines in found.items() if word in words}


@functools.lru_cache(maxsize=64)
def indexed(text: str) -> tuple[LineIndex, str]:
    """The :class:`LineIndex` of ``text`` and ``text`` lower-cased (:func:`lower_same_length`),
    cached for the last texts seen, so every auditor of one bundle shares them."""
    return LineIndex(text), lower_same_length(text)


def forget() -> None:
    """Drop what this module remembers of the texts seen (the line indexes, the token
    memory); compiled patterns stay. For benchmarks that measure a first audit."""
    indexed.cache_clear()
    _repetitive.cache_clear()
    _MEMORY.__init__()  # type: ignore[misc]
    _SEARCHED.texts.clear()


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


__all__ = ["EXCERPT_CHARS", "FULL_SEARCH_CHARS", "LineIndex", "excerpt", "forget", "indexed",
           "lower_same_length", "word_lines"]
