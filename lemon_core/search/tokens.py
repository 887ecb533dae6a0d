"""Words of a text, as the relevance index and its queries both see them.

Case-, accent-width- and hyphen-insensitive: text is NFKC-folded and lower-cased, split on
anything that is not a letter or digit (so ``bun-file-io``, ``bun_file_io`` and ``Bun File IO``
give the same words), common English function words are dropped, and a light suffix rule
folds plurals and ``-ing``/``-ed`` forms (``migrations`` and ``migrating`` meet ``migrate``).
Chinese, Japanese and Korean text, written without spaces, is cut into overlapping pairs of
characters (``高考物理`` -> ``高考 考物 物理``), so a request shares words with a description
that says the same thing in other order or other company.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
#: Scripts written without spaces between words: Han, kana, Hangul (and their extensions).
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]+")
#: ASCII text: every character but a lower-case letter or a digit becomes a space.
_ASCII_SPACES = {i: " " for i in range(128) if not chr(i).isalnum() or chr(i).isupper()}

#: Words that say nothing about which skill is meant (requests are full of them).
_STOPWORDS_TEXT = """
a about above after again all also am an and any are as at be been being both but by can
could did do does doing done each even every few for from get got had has have having he her
here him his how i if in into is it its just let like make me might more most much must my
need needs no nor not now of off on once one only or other our out over own please same she
should so some such than that the their them then there these they this those through to too
under until up us use used uses using very want wants was way we were what when where which
while who whom why will with would you your yours help
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light, deterministic suffix fold (no dictionary): ``policies`` -> ``policy``,
    ``tests``/``testing``/``tested`` -> ``test``; words of 4 characters or fewer stay."""
    if len(word) <= 4 or word.isdigit():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not word.endswith(("ches", "shes", "xes", "zes", "sses")):
                continue  # "images" -> "image" (the "s" rule), "boxes" -> "box"
            base = word[: -len(suffix)] + replacement
            if (suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2]
                    and base[-1] not in "lsz"):
                return base[:-1]  # "running" -> "run", "mapped" -> "map"
            if suffix in ("ing", "ed") and base.endswith(("at", "iz", "bl", "rs", "v")):
                base += "e"  # "migrating" -> "migrate", "parsing" -> "parse"
            elif (suffix in ("ing", "ed") and len(base) <= 4 and base[-1] not in "aeiouwxy"
                  and base[-2] in "aeiou" and base[-3] not in "aeiou"):
                base += "e"  # "writing" -> "write", "coding" -> "code"
            return base
    return word


def fold(text: str) -> str:
    """``text`` NFKC-normalised and case-folded."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return text.lower()


class _Analysed(dict[str, str]):
    """Raw word -> its indexed form ("" for a stopword), filled on first sight."""

    def __missing__(self, raw: str) -> str:
        if raw in STOPWORDS or (len(raw) < 2 and not raw.isdigit() and not _CJK.match(raw)):
            form = ""
        else:
            form = stem(raw)
        if len(self) < 500_000:
            self[raw] = form
        return form


_ANALYSED = _Analysed()


def words(text: str) -> list[str]:
    """Every word of ``text`` in order, folded and stemmed, stopwords and 1-character words
    dropped (digits kept: ``s3``, ``k8s``, ``2fa``)."""
    if text.isascii():  # the same words, found several times faster
        raw = text.lower().translate(_ASCII_SPACES).split()
    else:
        raw = _WORD.findall(fold(text))
        if any(_CJK.search(item) for item in raw):
            raw = [piece for item in raw for piece in _cjk_pieces(item)]
    return list(filter(None, map(_ANALYSED.__getitem__, raw)))


def _cjk_pieces(raw: str) -> list[str]:
    """``raw`` with each run of CJK characters replaced by its overlapping character pairs (a
    lone character stays whole); the other parts are kept as they are."""
    out: list[str] = []
    at = 0
    for run in _CJK.finditer(raw):
        if run.start() > at:
            out.append(raw[at:run.start()])
        chars = run.group()
        out.extend([chars] if len(chars) == 1 else
                   [chars[i:i + 2] for i in range(len(chars) - 1)])
        at = run.end()
    if at < len(raw):
        out.append(raw[at:])
    return out


def compact(text: str) -> str:
    """``text`` without case or separators: ``Bun-File IO`` -> ``bunfileio`` (how a key or a
    name is matched whole)."""
    return "".join(_WORD.findall(fold(text)))


def query_words(text: str) -> list[str]:
    """The distinct words of a query, in order."""
    return list(dict.fromkeys(words(text)))


__all__ = ["STOPWORDS", "compact", "fold", "query_words", "stem", "words"]
