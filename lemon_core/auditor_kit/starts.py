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
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

try:  # Python 3.11+
    from re import _compiler as _sre_compile
    from re import _constants as _sre
    from re import _parser as _sre_parse
except ImportError:  # pragma: no cover - Python 3.10
    import sre_compile as _sre_compile  # type: ignore[no-redef]
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

from lemon_core.auditor_kit.lines import lower_same_length

#: The longest start string kept (longer ones are cut: still a start, less selective).
MAX_START = 4
#: More start strings than this: the pattern is searched as it is.
MAX_STARTS = 64
#: A text with more non-ASCII characters than this share is searched as it is.
MAX_NON_ASCII_SHARE = 1 / 16

_ZERO_WIDTH = frozenset({_sre.AT, _sre.ASSERT, _sre.ASSERT_NOT})
_REPEATS = frozenset(op for op in (getattr(_sre, "MAX_REPEAT", None), getattr(_sre, "MIN_REPEAT", None),
                                   getattr(_sre, "POSSESSIVE_REPEAT", None)) if op is not None)
_GROUPS = frozenset(op for op in (_sre.SUBPATTERN, getattr(_sre, "ATOMIC_GROUP", None))
                    if op is not None)

#: (strings, complete): a match begins with one of ``strings`` ("" when it may be empty);
#: ``complete`` when a match is exactly one of them. None: a match may begin with anything.
_Starts = tuple[frozenset[str], bool] | None


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


def _item(op: object, av: object) -> _Starts:
    if op is _sre.LITERAL:
        return _literals([av]), True  # type: ignore[list-item]
    if op is _sre.IN:
        codes = []
        for member, value in av:  # type: ignore[attr-defined]
            if member is _sre.LITERAL:
                codes.append(value)
            elif member is _sre.RANGE and value[1] - value[0] < 10:
                codes.extend(range(value[0], value[1] + 1))
            else:  # a negated set, a category, a wide range
                return None
        return _literals(codes), True
    if op is _sre.BRANCH:
        strings: set[str] = set()
        complete = True
        for alternative in av[1]:  # type: ignore[index]
            found = _sequence(alternative.data)
            if found is None:
                return None
            strings |= found[0]
            complete = complete and found[1]
        return frozenset(strings), complete
    if op in _GROUPS:
        return _sequence((av[-1] if op is _sre.SUBPATTERN else av).data)  # type: ignore[index, union-attr]
    if op in _REPEATS:
        least, most, body = av  # type: ignore[misc]
        found = _sequence(body.data)
        if found is None:
            return None
        if least == 0:
            return found[0] | {""}, found[1] and most == 1
        return found[0], found[1] and least == most == 1
    return None  # any character, a class, a back-reference…


def _sequence(items: list[tuple[object, object]]) -> _Starts:
    """The starts of ``items`` matched one after the other."""
    position = 0
    while position < len(items) and items[position][0] in _ZERO_WIDTH:
        position += 1  # an assertion consumes nothing: it only narrows where a match is
    if position == len(items):
        return frozenset({""}), True
    head = _item(*items[position])
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


@functools.lru_cache(maxsize=16)
def _parse(source: str, flags: int) -> object:
    """The parse tree of the pattern (read, never changed, by both analyses below)."""
    return _sre_parse.parse(source, flags)


@functools.lru_cache(maxsize=256)
def literal_starts(source: str, flags: int = 0) -> tuple[str, ...] | None:
    """The lower-cased strings (at most :data:`MAX_START` characters) one of which begins
    every match of the pattern ``source`` compiled with ``flags`` (compared without regard to
    ASCII case), or None when they cannot be told from its parse tree."""
    try:
        found = _sequence(_parse(source, flags).data)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an unknown construct: search as it is
        return None
    if found is None or "" in found[0] or len(found[0]) > MAX_STARTS:
        return None
    return tuple(sorted(found[0]))  # empty: every match opens with a non-ASCII character


@functools.lru_cache(maxsize=256)
def engine_skips(source: str, flags: int = 0) -> bool:
    """Whether the engine itself skips to where a match can start (the pattern opens with
    a case-sensitive literal or set): then its own search is as quick as a start search."""
    try:
        parsed = _parse(source, flags)
        flags |= parsed.state.flags  # type: ignore[attr-defined]
        prefix = _sre_compile._get_literal_prefix(parsed, flags)[0]
        return bool(prefix) or _sre_compile._get_charset_prefix(parsed, flags) is not None
    except Exception:  # noqa: BLE001 - not known: the start search decides on its own
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
