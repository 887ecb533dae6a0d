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
            head = lower[:FULL_SEARCH_CHARS]
            found = self.lines_containing(head, words)
            for word in core:
                at = lower.find(word, FULL_SEARCH_CHARS - len(word))
                while at != -1:
                    number = self.line_of(at)
                    found.add(number)
                    at = lower.find(word, self._starts[number] if number < len(self._starts)
                                    else len(lower))
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


#: Characters from the most to the least common in skill text; a word is found by its rarest.
_COMMON_FIRST = (" etasiorncldpum-hgf`y*.bw\"#v:,k/|x)(_01=\'2qj[]{}z35>4<;6\\$8?+79%&")


def _rarity(char: str) -> int:
    at = _COMMON_FIRST.find(char)
    return at if at >= 0 else len(_COMMON_FIRST)


def _anchor(word: str) -> int:
    return max(range(len(word)), key=lambda i: (_rarity(word[i]), -i))


@functools.lru_cache(maxsize=32)
def _any_word(words: frozenset[str]) -> tuple[re.Pattern[str], tuple[tuple[str, tuple[str, ...]], ...]]:
    """One pattern matching any of ``words``, each anchored on its rarest character (the
    characters before it checked by a lookbehind): the search skips, in C, every position
    that holds none of the anchors. With it, the words by anchor."""
    if any(not word or "\n" in word for word in words):
        raise ValueError("the words searched for are non-empty and hold no newline")
    by_anchor: dict[str, list[str]] = {}
    branches: dict[str, list[str]] = {}
    for word in sorted(words):
        at = _anchor(word)
        head = f"(?<={re.escape(word[: at + 1])})" if at else ""
        branches.setdefault(word[at], []).append(head + re.escape(word[at + 1:]))
        by_anchor.setdefault(word[at], []).append(word)
    pattern = re.compile("|".join(re.escape(anchor) + "(?:" + "|".join(rests) + ")"
                                  for anchor, rests in sorted(branches.items())))
    return pattern, tuple((anchor, tuple(group)) for anchor, group in sorted(by_anchor.items()))


def _anchored_word_lines(index: LineIndex, lower: str,
                         words: frozenset[str]) -> dict[str, set[int]]:
    """For each of ``words`` found in ``lower`` (the text, lower-cased), the numbers of the
    lines holding it — what :meth:`LineIndex.lines_containing` finds word by word, from one
    search for all the words (it stops on a line holding any, then tests there the words
    whose rarest character the line holds)."""
    pattern, by_anchor = _any_word(words)
    groups = dict(by_anchor)
    anchors = frozenset(groups)
    starts = index._starts
    count, size = len(starts), len(lower)
    found: dict[str, set[int]] = {}
    search, line_of = pattern.search, index.line_of
    match = search(lower)
    while match is not None:
        number = line_of(match.start())
        end = starts[number] if number < count else size
        line = lower[starts[number - 1]:end]
        for anchor in anchors.intersection(line):
            for word in groups[anchor]:
                if word in line:
                    lines = found.get(word)
                    if lines is None:
                        found[word] = {number}
                    else:
                        lines.add(number)
        match = search(lower, end)
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
        (the short ones) and add what they hold to ``present``: one search over the tokens
        joined finds the next token holding an anchor (the rarest character of a key,
        :func:`_any_word`), where the keys of the anchors it holds are tested."""
        pattern, by_anchor = _any_word(self.keys)
        groups = dict(by_anchor)
        anchors = frozenset(groups)
        joined = "\n".join(novel)
        search = pattern.search
        rfind, find = joined.rfind, joined.find
        size = len(joined)
        match = search(joined)
        while match is not None:
            at = match.start()
            end = find("\n", at)
            if end == -1:
                end = size
            token = joined[rfind("\n", 0, at) + 1:end]
            held = [key for anchor in anchors.intersection(token) for key in groups[anchor]
                    if key in token]
            present.update(held)
            if len(token) <= _TOKEN_CHARS:
                self.holders[token] = held
                self.holding.add(token)
            match = search(joined, end)
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


def word_lines(index: LineIndex, lower: str, words: frozenset[str]) -> dict[str, set[int]]:
    """For each of ``words`` found in ``lower`` (the text, lower-cased), the numbers of the
    lines holding it: what :meth:`LineIndex.lines_containing` finds word by word. A text that
    is not :func:`_repetitive` is searched once for all the words (:func:`_anchored_word_lines`).
    In a repetitive one a word can
    only be in the text if its key (:func:`_parts`) is in one of the text's distinct tokens;
    the keys are searched in those all at once (what a token holds is remembered across
    texts, for the tokens of ordinary prose recur), and only the words whose key is there are
    looked for, word by word, in the text itself."""
    if not _repetitive(lower):
        _parts(words)  # the same checks of the words
        return _anchored_word_lines(index, lower, words)
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
