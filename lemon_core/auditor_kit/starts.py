"""Searching a long text only where a match can start.

Python's regular-expression engine skips ahead quickly only for a pattern that opens with a
literal or a set of case-sensitive characters; the auditors' patterns open with ``\\b`` and a
case-insensitive alternation, so a search tries the whole pattern at every position of the
text: 100-700 ns a character. One line of 130,000 characters (a page pasted whole) holds
every trigger word somewhere, so every rule searched all of it: 0.6 s for one file.

:func:`literal_starts` reads, from the pattern's parse tree, the strings one of which every
match begins with (lower-cased, up to :data:`MAX_START` characters). :class:`StartSearch`
finds those strings in the lower-cased text with one plain alternation (which the engine does
skip through) and tries the pattern only there, with ``pattern.match(text, at, endpos)``: the
same match ``pattern.search`` returns, since ``search`` is ``match`` tried at each position in
turn and a match cannot begin anywhere else (lookbehinds and ``\\b`` still see the text before
``at``). What a lower-cased comparison could miss is tried as well: every position within
:data:`MAX_START` characters before a non-ASCII character (which may case-fold to an ASCII
letter, ``ſ`` to ``s``, ``K`` to ``k``). A pattern whose starts cannot be read (a class, an
optional or non-ASCII opening…), or that the engine already skips through
(:func:`engine_skips`), is searched as it is.

The starts are read from the pattern's source by :class:`_Reader`, a small reader of the
regular-expression syntax the auditors write (literals, escapes, sets, groups, alternation,
repeats, anchors and lookarounds); anything else it does not know (a verbose pattern, a
back-reference, a scoped flag…) makes the starts unknown. It replaces a reading of CPython's
private ``re._parser`` tree. ``LEMON_PLAIN=search`` (:mod:`lemon_core.plain`) turns the start
search off; tests/auditor_kit/test_starts.py checks it finds what the plain search finds, for
every pattern of the built-in auditors and for generated ones.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from lemon_core.auditor_kit.lines import lower_same_length

#: The longest start string kept (longer ones are cut: still a start, less selective).
MAX_START = 4
#: More start strings than this: the pattern is searched as it is.
MAX_STARTS = 64
#: A text with more non-ASCII characters than this share is searched as it is.
MAX_NON_ASCII_SHARE = 1 / 16

#: (strings, complete): a match begins with one of ``strings`` ("" when it may be empty);
#: ``complete`` when a match is exactly one of them. None: a match may begin with anything.
_Starts = tuple[frozenset[str], bool] | None

#: What the reader makes of a pattern: items of a sequence, each one of
#: ("chars", [code, ...]) one character among these; ("zero",) an anchor or lookaround;
#: ("branch", [sequence, ...]); ("group", sequence); ("repeat", least, most, sequence);
#: ("any",) anything else (a class such as \w, a dot, a negated set).
_Item = tuple
_ESCAPED_CHARS = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_ZERO_ESCAPES = frozenset("bBAZ")
_CLASS_ESCAPES = frozenset("dDwWsS")


class _Unknown(Exception):
    """A construct the reader does not know: the starts are unknown."""


class _Reader:
    """Reads a pattern's source into :data:`_Item` sequences (see the module docstring)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0

    def read(self) -> list[_Item]:
        if self.source.startswith("(?"):  # global inline flags, e.g. (?i) or (?s)
            end = self.source.find(")")
            flags = self.source[2:end] if end > 0 else ""
            if flags and flags.isalpha():
                if "x" in flags:
                    raise _Unknown  # verbose: white space and comments
                self.at = end + 1
        items = self._alternation()
        if self.at != len(self.source):
            raise _Unknown
        return items

    def _alternation(self) -> list[_Item]:
        branches = [self._sequence()]
        while self._peek() == "|":
            self.at += 1
            branches.append(self._sequence())
        return branches[0] if len(branches) == 1 else [("branch", branches)]

    def _sequence(self) -> list[_Item]:
        items: list[_Item] = []
        while self.at < len(self.source) and self._peek() not in "|)":
            item = self._atom()
            items.append(self._repeat(item))
        return items

    def _peek(self) -> str:
        return self.source[self.at] if self.at < len(self.source) else ""

    def _atom(self) -> _Item:
        char = self.source[self.at]
        self.at += 1
        if char == "(":
            return self._group()
        if char == "[":
            return self._set()
        if char == "\\":
            return self._escape()
        if char in "^$":
            return ("zero",)
        if char == ".":
            return ("any",)
        if char in "*+?{":
            raise _Unknown  # a repeat of nothing (or a literal brace): not read
        return ("chars", [ord(char)])

    def _group(self) -> _Item:
        source = self.source
        if source.startswith("?:", self.at):
            self.at += 2
        elif source.startswith("?P<", self.at):
            end = source.find(">", self.at)
            if end < 0:
                raise _Unknown
            self.at = end + 1
        elif source.startswith(("?=", "?!", "?<=", "?<!"), self.at):
            self.at += 3 if source.startswith("?<", self.at) else 2
            self._alternation()
            self._close()
            return ("zero",)
        elif source.startswith("?", self.at):
            raise _Unknown  # a scoped flag, a comment, a conditional…
        inner = self._alternation()
        self._close()
        return ("group", inner)

    def _close(self) -> None:
        if self._peek() != ")":
            raise _Unknown
        self.at += 1

    def _escape(self) -> _Item:
        if self.at >= len(self.source):
            raise _Unknown
        char = self.source[self.at]
        self.at += 1
        if char in _ZERO_ESCAPES:
            return ("zero",)
        if char in _CLASS_ESCAPES:
            return ("any",)
        if char in _ESCAPED_CHARS:
            return ("chars", [ord(_ESCAPED_CHARS[char])])
        if char.isalnum() or not char.isascii():
            raise _Unknown  # a back-reference, \x41, \u00e9, \N{…}: not read
        return ("chars", [ord(char)])

    def _set(self) -> _Item:
        source = self.source
        if self._peek() == "^":
            self._skip_set(opening=True)
            return ("any",)
        codes: list[int] = []
        first = True
        while True:
            if self.at >= len(source):
                raise _Unknown
            char = source[self.at]
            if char == "]" and not first:
                self.at += 1
                return ("chars", codes) if codes else ("any",)
            first = False
            code = self._set_char()
            if code is None:
                self._skip_set()
                return ("any",)
            if self._peek() == "-" and self.at + 1 < len(source) and source[self.at + 1] != "]":
                self.at += 1
                high = self._set_char()
                if high is None or high < code:
                    raise _Unknown
                if high - code >= 10:
                    self._skip_set()
                    return ("any",)  # a wide range
                codes.extend(range(code, high + 1))
            else:
                codes.append(code)

    def _set_char(self) -> int | None:
        """The code of one character of a set, None for a class escape (\\w, \\s…)."""
        char = self.source[self.at]
        self.at += 1
        if char == "[":
            raise _Unknown  # a nested set (a FutureWarning in CPython)
        if char != "\\":
            return ord(char)
        if self.at >= len(self.source):
            raise _Unknown
        char = self.source[self.at]
        self.at += 1
        if char in _CLASS_ESCAPES:
            return None
        if char in _ESCAPED_CHARS:
            return ord(_ESCAPED_CHARS[char])
        if char.isalnum() or not char.isascii():
            raise _Unknown
        return ord(char)

    def _skip_set(self, opening: bool = False) -> None:
        """Move past the ``]`` that closes the set being read (``opening``: from its first
        character, where ``^`` negates and a ``]`` is a member)."""
        source = self.source
        if opening and self._peek() == "^":
            self.at += 1
        if opening and self._peek() == "]":
            self.at += 1
        while self.at < len(source) and source[self.at] != "]":
            self.at += 2 if source[self.at] == "\\" else 1
        if self.at >= len(source):
            raise _Unknown
        self.at += 1

    def _repeat(self, item: _Item) -> _Item:
        char = self._peek()
        if char in ("?", "*", "+"):
            self.at += 1
            least, most = {"?": (0, 1), "*": (0, None), "+": (1, None)}[char]
        elif char == "{":
            end = self.source.find("}", self.at)
            body = self.source[self.at + 1:end] if end > 0 else ""
            match = re.fullmatch(r"(\d*)(,?)(\d*)", body)
            if match is None or not (match[1] or match[3]):
                raise _Unknown  # a literal brace: not read
            least = int(match[1] or 0)
            most = int(match[3]) if match[3] else (None if match[2] else least)
            self.at = end + 1
        else:
            return item
        if self._peek() in ("?", "+"):
            self.at += 1  # lazy or possessive: the same strings can start it
        if item[0] == "zero":
            raise _Unknown
        return ("repeat", least, most, [item])


def _char(code: int) -> str | None:
    char = chr(code)
    return char.lower() if char.isascii() else None


@functools.lru_cache(maxsize=256)
def _ascii_folds(code: int) -> frozenset[str]:
    """The ASCII characters (lower-cased) the non-ASCII literal ``chr(code)`` matches when
    case is ignored (``ı`` matches ``i``, ``ſ`` matches ``s``; most match none): asked of the
    engine itself, for each of the 128."""
    literal = re.compile(re.escape(chr(code)), re.IGNORECASE)
    return frozenset(chr(ascii).lower() for ascii in range(128) if literal.fullmatch(chr(ascii)))


def _literals(codes: list[int]) -> frozenset[str]:
    """The lower-cased ASCII characters that one of ``codes`` matches, case ignored; a
    non-ASCII character of the text that one of them matches is tried as a wildcard."""
    chars: set[str] = set()
    for code in codes:
        char = _char(code)
        chars.update((char,) if char is not None else _ascii_folds(code))
    return frozenset(chars)


def _item(item: _Item) -> _Starts:
    kind = item[0]
    if kind == "chars":
        return _literals(item[1]), True
    if kind == "branch":
        strings: set[str] = set()
        complete = True
        for alternative in item[1]:
            found = _sequence(alternative)
            if found is None:
                return None
            strings |= found[0]
            complete = complete and found[1]
        return frozenset(strings), complete
    if kind == "group":
        return _sequence(item[1])
    if kind == "repeat":
        least, most, body = item[1], item[2], item[3]
        found = _sequence(body)
        if found is None:
            return None
        if least == 0:
            return found[0] | {""}, found[1] and most == 1
        return found[0], found[1] and least == most == 1
    return None  # any character, a class, a negated set…


def _sequence(items: list[_Item]) -> _Starts:
    """The starts of ``items`` matched one after the other."""
    position = 0
    while position < len(items) and items[position][0] == "zero":
        position += 1  # an assertion consumes nothing: it only narrows where a match is
    if position == len(items):
        return frozenset({""}), True
    head = _item(items[position])
    if head is None:
        return None
    strings, complete = head
    if not strings:  # only a non-ASCII character can open it: a wildcard finds it
        return frozenset(), False
    rest = _sequence(items[position + 1:]) if ("" in strings or complete) else None
    if rest is not None and not rest[0]:  # what follows opens with a non-ASCII character
        return strings - {""}, False  # the head's strings, or (head empty) a wildcard
    if "" in strings and rest is None:
        return None  # the head may be empty and what follows it is not known
    if not complete or rest is None:
        opened = strings - {""}
        return (opened | rest[0], False) if "" in strings and rest is not None else (opened, False)
    joined = {head_string + tail for head_string in strings for tail in rest[0]}
    if len(joined) > MAX_STARTS:
        return (strings - {""}, False) if "" not in strings else None
    cut = {string[:MAX_START] for string in joined}
    return frozenset(cut), rest[1] and cut == joined


@functools.lru_cache(maxsize=256)
def _read(source: str, flags: int) -> list[_Item] | None:
    """The pattern read by :class:`_Reader`, None when it holds what the reader does not know."""
    if flags & re.VERBOSE:
        return None
    try:
        return _Reader(source).read()
    except (_Unknown, IndexError):
        return None


@functools.lru_cache(maxsize=256)
def literal_starts(source: str, flags: int = 0) -> tuple[str, ...] | None:
    """The lower-cased strings (at most :data:`MAX_START` characters) one of which begins
    every match of the pattern ``source`` compiled with ``flags`` (compared without regard to
    ASCII case), or None when they cannot be told from its source."""
    items = _read(source, flags)
    found = _sequence(items) if items is not None else None
    if found is None or "" in found[0] or len(found[0]) > MAX_STARTS:
        return None
    return tuple(sorted(found[0]))  # empty: every match opens with a non-ASCII character


@functools.lru_cache(maxsize=256)
def engine_skips(source: str, flags: int = 0) -> bool:
    """Whether the engine itself skips to where a match can start: the pattern opens (inside
    its groups) with a set, or with a character whose case does not matter. Then its own
    search is as quick as a start search. (A judgement of speed only: either answer finds the
    same matches.)"""
    items = _read(source, flags)
    ignore_case = bool(flags & re.IGNORECASE) or source.startswith("(?") and "i" in \
        source[2:source.find(")")]
    while items:
        head = items[0]
        if head[0] == "group":
            items = head[1]
            continue
        if head[0] != "chars":
            return False
        codes = head[1]
        if len(codes) > 1:
            return True  # a set: the engine skips through its characters
        char = chr(codes[0])
        return not ignore_case or char.lower() == char.upper()
    return False


_NON_ASCII = re.compile("[^\x00-\x7f]")


@functools.lru_cache(maxsize=8)
def _prepared(text: str) -> tuple[str, list[int]] | None:
    """``text`` lower-cased (offsets kept) and the positions of its non-ASCII characters;
    None when those are too many for the start search to pay."""
    if text.isascii():
        return lower_same_length(text), []
    count = len(text) - len(text.encode("ascii", "ignore"))
    if count > len(text) * MAX_NON_ASCII_SHARE:
        return None
    return lower_same_length(text), [match.start() for match in _NON_ASCII.finditer(text)]


class StartSearch:
    """``pattern.search`` and ``pattern.finditer`` of a long text, the pattern tried only
    where one of its :func:`literal_starts` stands (see the module docstring)."""

    def __init__(self, pattern: re.Pattern[str], starts: tuple[str, ...]) -> None:
        self.pattern = pattern
        #: None when every match opens with a non-ASCII character (tried as wildcards).
        self.finder = re.compile("|".join(re.escape(start) for start in starts)) if starts \
            else None
        self.width = max(map(len, starts), default=1)

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        end = len(text) if endpos is None else max(0, min(endpos, len(text)))
        prepared = _prepared(text)
        if prepared is None:
            return self.pattern.search(text, pos, end)
        return self._search(text, *prepared, pos, end)

    def _search(self, text: str, lower: str, wild: list[int], pos: int,
                end: int) -> re.Match[str] | None:
        pos = max(pos, 0)
        find, match = self.finder.search if self.finder is not None else None, \
            self.pattern.match
        next_start = -1  # where the finder's last search stopped: a start, or end + 1
        while pos <= end:
            if next_start < pos:
                found = find(lower, pos, end) if find is not None else None
                next_start = found.start() if found is not None else end + 1
            at = next_start
            nearest = bisect.bisect_left(wild, pos)  # a non-ASCII character at or after pos
            if nearest < len(wild):
                at = min(at, max(pos, wild[nearest] - self.width + 1))
            if at > end:
                return None
            result = match(text, at, end)
            if result is not None:
                return result
            pos = at + 1
        return None

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[re.Match[str]]:
        end = len(text) if endpos is None else max(0, min(endpos, len(text)))
        prepared = _prepared(text)
        if prepared is None:
            yield from self.pattern.finditer(text, pos, end)
            return
        lower, wild = prepared
        while True:
            result = self._search(text, lower, wild, pos, end)
            if result is None:
                return
            yield result
            pos = result.end()  # never empty: a pattern with starts consumes its start


#: Single characters rare enough in text for a start search from them to pay (each place a
#: start stands costs a try of the pattern in Python; a letter or a quote stands everywhere).
_RARE_SINGLES = frozenset("<>$&;|!`({[:~#%@^*+=?")


def start_search(pattern: re.Pattern[str], source: str, flags: int = 0) -> StartSearch | None:
    """The :class:`StartSearch` of ``pattern`` (compiled from ``source`` and ``flags``), or
    None when its own search is as quick: its starts are not known, the engine skips on its
    own (:func:`engine_skips`), or a start is a common single character."""
    if engine_skips(source, flags):
        return None
    starts = literal_starts(source, flags)
    if starts is None or any(len(start) < 2 and start not in _RARE_SINGLES for start in starts):
        return None
    return StartSearch(pattern, starts)


__all__ = ["MAX_START", "StartSearch", "engine_skips", "literal_starts", "start_search"]
