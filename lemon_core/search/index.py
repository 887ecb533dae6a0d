"""The relevance index: which skills answer a request, best first.

A field-weighted BM25 (BM25F) over four fields of every skill, each word weighted by its
inverse document frequency (Lucene's never-negative form, so a word in every description
barely counts):

======== ================================ ======
field    from                             weight
======== ================================ ======
name     the key and the name             3.0
keywords the ``keywords`` and the ``tags`` 2.5
about    the description                  1.5
body     a bounded excerpt of the body    0.4
======== ================================ ======

Every (word, skill) score is computed when the index is built, so a query only adds up the
postings of its own words (the longest copied in C), whatever the catalog's size. On top of that sum, a skill whose key or name is spelled by a run of the query's words
(``bun file io``, ``bun-file-io``, ``BunFileIO``) gains a bonus, and a skill matching only some of
the query's words is scaled down (coverage). A query word that no skill uses (``dockerfle``,
``prsima``) is read as the most used indexed word one edit away (a letter dropped, added,
changed or two swapped), at :data:`CORRECTED_WEIGHT`; a query word with related words in the
small table of :mod:`lemon_core.search.concepts` (``k8s``/``kubernetes``, ``cv``/``resume``)
also matches them, at :data:`RELATED_WEIGHT`. Equal scores are ordered by key.

The index never holds the body text itself; :meth:`SearchIndex.to_data` and
:meth:`SearchIndex.from_data` turn it into plain JSON data for the persistent cache (postings
as base64 arrays, decoded only for the words a query uses).
"""

from __future__ import annotations

import base64
import heapq
import math
import operator
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from lemon_core.search.concepts import related
from lemon_core.search.tokens import _WORD, compact, fold, query_words, words

#: field -> (weight, length normalisation b)
FIELDS: dict[str, tuple[float, float]] = {
    "name": (3.0, 0.3),
    "keywords": (2.5, 0.3),
    "about": (1.5, 0.75),
    "body": (0.4, 0.75),
}
K1 = 1.2
#: Added when the whole query spells a skill's key or name.
EXACT_NAME_BONUS = 12.0
#: Added per query word of a shorter run that spells a key or name.
SPAN_NAME_BONUS = 2.5
MAX_SPAN = 6
#: The share of the score kept by a skill that matches none but one of many words.
COVERAGE_FLOOR = 0.6
#: A word in more than this share of the skills counts only for the skills it names or
#: describes (name, keywords, tags, description), not for those whose body merely uses it.
COMMON_SHARE = 0.5
#: Added to every word's score while summing, so the sum also counts the words matched (a
#: score is at most idf * (K1 + 1), far below it).
COUNT_UNIT = 4096.0
#: The share of its score a query word's one-edit correction counts for.
CORRECTED_WEIGHT = 0.8
#: The share of its score a word related to a query word (:mod:`concepts`) counts for.
RELATED_WEIGHT = 0.6
#: Words shorter than this are never corrected (too many neighbours one edit away).
MIN_CORRECTED = 4
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
INDEX_FORMAT = 2
_SCORE = operator.itemgetter(1)


#: field -> (length in words, word -> count)
Analysis = dict[str, tuple[int, dict[str, int]]]


@attrs.frozen
class SearchDoc:
    """What the index reads of one skill."""

    key: str
    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    body: str = ""
    #: :meth:`analyse` done earlier (the body need not be kept then).
    analysis: Analysis | None = attrs.field(default=None, eq=False, repr=False)

    def analyse(self) -> Analysis:
        """Each field's length in words and its word counts."""
        if self.analysis is not None:
            return self.analysis
        return {field: (len(terms), dict(Counter(terms)))
                for field, terms in self.fields().items()}

    def fields(self) -> dict[str, list[str]]:
        name = words(self.key.replace("-", " ").replace("_", " "))
        if compact(self.name) != compact(self.key):
            name += words(self.name)
        return {
            "name": name,
            "keywords": [w for item in (*self.keywords, *self.tags) for w in words(item)],
            "about": words(self.description),
            "body": words(self.body),
        }


def _encode(ids: Sequence[int], scores: Sequence[float]) -> str:
    return base64.b64encode(array("I", ids).tobytes() + array("f", scores).tobytes()).decode()


def _decode(text: str) -> tuple[array[int], array[float]]:
    ids, scores = array("I"), array("f")
    try:
        raw = base64.b64decode(text, validate=True)
        half = len(raw) // 2
        ids.frombytes(raw[:half])
        scores.frombytes(raw[half:])
    except ValueError:  # not base64, or not whole arrays: match nothing
        return array("I"), array("f")
    return ids, scores


class SearchIndex:
    """An immutable relevance index over ``keys`` (document ``i`` is ``keys[i]``)."""

    def __init__(self, keys: Sequence[str], postings: dict[str, Any],
                 names: dict[str, list[int]]) -> None:
        self.keys = tuple(keys)
        #: word -> (doc ids, scores), or its base64 form until a query first needs it
        self._postings = postings
        #: a key or name without case or separators -> doc ids
        self._names = names
        self._plus: dict[str, array[float]] = {}
        #: "~word" -> the scaled posting of ``word``, standing in for a misspelt query word;
        #: "+word" -> the posting of ``word`` widened by its related words
        self._fixed: dict[str, tuple[array[int], array[float]]] = {}

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def build(cls, docs: Iterable[SearchDoc]) -> SearchIndex:
        docs = sorted(docs, key=lambda doc: doc.key)  # document order is key order
        n = len(docs)
        analysed = [doc.analyse() for doc in docs]
        average = {}  # over the documents that have the field: most have no keywords
        for field in FIELDS:
            lengths = [f[field][0] for f in analysed if f[field][0]]
            average[field] = (sum(lengths) / len(lengths)) if lengths else 1.0
        lists: dict[str, tuple[list[int], list[float], list[bool]]] = {}
        saturate = K1 + 1.0
        for doc_id, fields in enumerate(analysed):
            tf: dict[str, float] = {}
            for field, (weight, b) in reversed(FIELDS.items()):  # the body, the largest, first
                length, counts = fields[field]
                if not length:
                    continue
                norm = weight / (1.0 - b + b * length / average[field])
                if not tf:
                    tf = {term: count * norm for term, count in counts.items()}
                    continue
                for term, count in counts.items():
                    tf[term] = tf.get(term, 0.0) + count * norm
            meta = {*fields["name"][1], *fields["keywords"][1], *fields["about"][1]}
            for term, value in tf.items():
                found = lists.get(term)
                if found is None:
                    found = lists[term] = ([], [], [])
                found[0].append(doc_id)
                found[1].append(saturate * value / (K1 + value))
                found[2].append(term in meta)
        postings: dict[str, Any] = {}
        common = n * COMMON_SHARE
        for term, (ids, scores, in_meta) in lists.items():
            df = len(ids)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            if df > common:  # only where it names or describes the skill
                kept = [i for i, flag in enumerate(in_meta) if flag]
                ids, scores = [ids[i] for i in kept], [scores[i] for i in kept]
                if not ids:
                    continue
            postings[term] = (array("I", ids), array("f", [s * idf for s in scores]))
        names: dict[str, list[int]] = {}
        for doc_id, doc in enumerate(docs):
            for form in {compact(doc.key), compact(doc.name)}:
                if form:
                    names.setdefault(form, []).append(doc_id)
        return cls([doc.key for doc in docs], postings, names)

    def _posting(self, term: str) -> tuple[array[int], array[float]] | None:
        if term.startswith(("~", "+")):
            return self._fixed.get(term)
        found = self._postings.get(term)
        if isinstance(found, str):
            ids, scores = _decode(found)
            if len(ids) != len(scores) or (ids and max(ids) >= len(self.keys)):
                ids, scores = array("I"), array("f")  # not this index's: match nothing
            found = self._postings[term] = (ids, scores)
        return found

    def _counted(self, term: str) -> array[float] | None:
        """The scores of ``term``'s posting plus :data:`COUNT_UNIT` each (made once per
        word, in C): a sum of them holds how many words matched (``sum // COUNT_UNIT``)."""
        found = self._plus.get(term)
        if found is None:
            posting = self._posting(term)
            if posting is None:
                return None
            found = self._plus[term] = array("d", map(COUNT_UNIT.__add__, posting[1]))
        return found

    def _correction(self, term: str) -> str | None:
        """The indexed word one edit away from ``term`` (an unindexed lower-case ASCII word)
        that most skills use, ties by the word; None when there is none."""
        if len(term) < MIN_CORRECTED or not term.isascii() or not term.isalnum():
            return None
        splits = [(term[:i], term[i:]) for i in range(len(term) + 1)]
        candidates = {a + b[1:] for a, b in splits if b}
        candidates.update(a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1)
        candidates.update(a + c + b[1:] for a, b in splits if b for c in _ALPHABET)
        candidates.update(a + c + b for a, b in splits for c in _ALPHABET)
        candidates.discard(term)
        best: tuple[int, str] | None = None
        postings = self._postings
        for word in candidates:
            found = postings.get(word)
            if found is None:
                continue
            size = len(found) if isinstance(found, str) else 6 * len(found[0])  # ~ base64
            if best is None or (size, best[1]) > (best[0], word):
                best = (size, word)
        return None if best is None else best[1]

    def _query_postings(self, terms: Sequence[str]
                        ) -> list[tuple[str, tuple[array[int], array[float]]]]:
        """Each query word's posting: widened by its related words (:mod:`concepts`), or, for
        an unindexed word without any, the scaled posting of its one-edit correction."""
        out = []
        for term in terms:
            key, posting = term, self._posting(term)
            if related(term):
                key = f"+{term}"
                posting = self._widened(term, posting)
            elif posting is None:
                fixed = self._correction(term)
                if fixed is None or (found := self._posting(fixed)) is None:
                    continue
                key = f"~{fixed}"
                posting = self._fixed.get(key)
                if posting is None:
                    posting = self._fixed[key] = (
                        found[0], array("f", [s * CORRECTED_WEIGHT for s in found[1]]))
            if posting is not None and len(posting[0]):
                out.append((key, posting))
        return out

    def _widened(self, term: str, own: tuple[array[int], array[float]] | None
                 ) -> tuple[array[int], array[float]]:
        """``term``'s posting where each skill scores the best of its own score and
        :data:`RELATED_WEIGHT` times its score for each related word (made once)."""
        key = f"+{term}"
        found = self._fixed.get(key)
        if found is not None:
            return found
        best: dict[int, float] = dict(zip(*own)) if own is not None else {}
        for other in related(term):
            posting = self._posting(other)
            if posting is None:
                continue
            get = best.get
            for doc_id, score in zip(posting[0], posting[1]):
                score *= RELATED_WEIGHT
                if score > get(doc_id, 0.0):
                    best[doc_id] = score
        found = self._fixed[key] = (array("I", best.keys()), array("f", best.values()))
        return found

    def scores(self, query: str) -> dict[int, float]:
        """Every matching document's score for ``query``."""
        terms = query_words(query)
        found = self._query_postings(terms)
        posted = [(term, posting[0]) for term, posting in found]
        total: dict[int, float]
        if not posted:
            total = {}
        elif len(terms) == 1:
            total = dict(zip(*found[0][1]))
        else:
            # Longest posting first, copied in C; the others added one document at a time.
            # Each score carries COUNT_UNIT so the sum also counts the words matched.
            posted.sort(key=lambda item: -len(item[1]))
            first, ids = posted[0]
            total = dict(zip(ids, self._counted(first)))
            get = total.get
            for term, ids in posted[1:]:
                for doc_id, score in zip(ids, self._counted(term)):
                    total[doc_id] = get(doc_id, 0.0) + score
            share = (1.0 - COVERAGE_FLOOR) / len(terms)
            factor = [COVERAGE_FLOOR + share * count for count in range(len(terms) + 1)]
            unit = COUNT_UNIT
            total = {doc_id: (value - unit * (count := int(value // unit))) * factor[count]
                     for doc_id, value in total.items()}
        for doc_id, bonus in self._name_bonus(query).items():
            total[doc_id] = total.get(doc_id, 0.0) + bonus
        return total

    def _name_bonus(self, query: str) -> dict[int, float]:
        bonus: dict[int, float] = {}
        raw = _WORD.findall(fold(query))
        if not raw or not self._names:
            return bonus
        whole = "".join(raw)
        for doc_id in self._names.get(whole, ()):
            bonus[doc_id] = EXACT_NAME_BONUS
        for size in range(min(MAX_SPAN, len(raw) - 1), 0, -1):
            for start in range(len(raw) - size + 1):
                form = "".join(raw[start:start + size])
                if len(form) < 4:
                    continue
                for doc_id in self._names.get(form, ()):
                    bonus.setdefault(doc_id, SPAN_NAME_BONUS * size)
        return bonus

    def search(self, query: str, limit: int = 10,
               allowed: Callable[[str], bool] | None = None) -> list[tuple[str, float]]:
        """The best ``limit`` ``(key, score)`` pairs, best first, ties by key; ``allowed``
        says which keys may appear."""
        if limit <= 0:
            return []
        keys = self.keys
        total = self.scores(query)
        wanted = limit + 8
        while True:
            best = heapq.nlargest(wanted, total.items(), key=_SCORE)  # in C
            found = [(keys[doc_id], score) for doc_id, score in best
                     if score > 0.0 and (allowed is None or allowed(keys[doc_id]))]
            if len(best) < wanted or len(found) >= limit:
                break
            wanted *= 4
        if len(best) == wanted and found[limit - 1][1] == best[-1][1]:
            # documents tied with the last one taken may lie beyond it: take them all
            edge = best[-1][1]
            found = [(keys[doc_id], score) for doc_id, score in total.items()
                     if score >= edge and (allowed is None or allowed(keys[doc_id]))]
        return heapq.nsmallest(limit, found, key=lambda item: (-item[1], item[0]))

    def to_data(self) -> dict[str, Any]:
        postings = {}
        for term, value in self._postings.items():
            postings[term] = value if isinstance(value, str) else _encode(*value)
        return {"format": INDEX_FORMAT, "byteorder": sys.byteorder, "keys": list(self.keys),
                "postings": postings, "names": self._names}

    @classmethod
    def from_data(cls, data: Any) -> SearchIndex | None:
        """The index ``data`` describes, or None when it is not this version's shape."""
        if not (isinstance(data, dict) and data.get("format") == INDEX_FORMAT
                and data.get("byteorder") == sys.byteorder):
            return None
        keys, postings, names = data.get("keys"), data.get("postings"), data.get("names")
        if not (isinstance(keys, list) and all(type(k) is str for k in keys)
                and isinstance(postings, dict) and isinstance(names, dict)):
            return None
        if not all(type(v) is str for v in postings.values()):
            return None
        limit = len(keys)
        for ids in names.values():
            if not (isinstance(ids, list) and all(type(i) is int and 0 <= i < limit
                                                  for i in ids)):
                return None
        return cls(keys, postings, names)


__all__ = ["FIELDS", "SearchDoc", "SearchIndex"]
