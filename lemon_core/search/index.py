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
postings of its own words: its cost is the length of those postings, whatever the catalog's
size. On top of that sum, a skill whose key or name is spelled by a run of the query's words
(``bun file io``, ``bun-file-io``, ``BunFileIO``) gains a bonus, and a skill matching only some of
the query's words is scaled down (coverage). Equal scores are ordered by key.

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
#: A query whose postings add up to more than 1/DENSE_SHARE of the documents is scored with
#: whole-array operations (one score per document) rather than document by document.
DENSE_SHARE = 4
INDEX_FORMAT = 1


@attrs.frozen
class SearchDoc:
    """What the index reads of one skill."""

    key: str
    name: str
    description: str = ""
    keywords: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    body: str = ""

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
        self._dense_cache: dict[str, tuple[array[float], bytes]] = {}

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def build(cls, docs: Iterable[SearchDoc]) -> SearchIndex:
        docs = sorted(docs, key=lambda doc: doc.key)  # document order is key order
        n = len(docs)
        analysed = [doc.fields() for doc in docs]
        average = {}  # over the documents that have the field: most have no keywords
        for field in FIELDS:
            lengths = [len(f[field]) for f in analysed if f[field]]
            average[field] = (sum(lengths) / len(lengths)) if lengths else 1.0
        lists: dict[str, tuple[list[int], list[float]]] = {}
        saturate = K1 + 1.0
        for doc_id, fields in enumerate(analysed):
            tf: dict[str, float] = {}
            for field, (weight, b) in reversed(FIELDS.items()):  # the body, the largest, first
                terms = fields[field]
                if not terms:
                    continue
                norm = weight / (1.0 - b + b * len(terms) / average[field])
                if not tf:
                    tf = {term: count * norm for term, count in Counter(terms).items()}
                    continue
                for term, count in Counter(terms).items():
                    tf[term] = tf.get(term, 0.0) + count * norm
            for term, value in tf.items():
                found = lists.get(term)
                if found is None:
                    found = lists[term] = ([], [])
                found[0].append(doc_id)
                found[1].append(saturate * value / (K1 + value))
        postings: dict[str, Any] = {}
        for term, (ids, scores) in lists.items():
            df = len(ids)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            postings[term] = (array("I", ids), array("f", [s * idf for s in scores]))
        names: dict[str, list[int]] = {}
        for doc_id, doc in enumerate(docs):
            for form in {compact(doc.key), compact(doc.name)}:
                if form:
                    names.setdefault(form, []).append(doc_id)
        return cls([doc.key for doc in docs], postings, names)

    def _posting(self, term: str) -> tuple[array[int], array[float]] | None:
        found = self._postings.get(term)
        if isinstance(found, str):
            ids, scores = _decode(found)
            if len(ids) != len(scores) or (ids and max(ids) >= len(self.keys)):
                ids, scores = array("I"), array("f")  # not this index's: match nothing
            found = self._postings[term] = (ids, scores)
        return found

    def _dense(self, term: str) -> tuple[array[float], bytes] | None:
        """The posting of ``term`` as one score per document (0.0 where absent) and a 0/1
        mask, for words in many documents: adding whole arrays runs in C."""
        found = self._dense_cache.get(term)
        if found is None:
            posting = self._posting(term)
            if posting is None:
                return None
            ids, scores = posting
            dense = array("f", bytes(4 * len(self.keys)))
            mask = bytearray(len(self.keys))
            for doc_id, score in zip(ids, scores):
                dense[doc_id] = score
                mask[doc_id] = 1
            found = self._dense_cache[term] = (dense, bytes(mask))
        return found

    def scores(self, query: str) -> dict[int, float]:
        """Every matching document's score for ``query`` (documents scoring 0 left out)."""
        terms = query_words(query)
        total: dict[int, float] = {}
        matched: dict[int, int] = {}
        for term in terms:
            posting = self._posting(term)
            if posting is None:
                continue
            get_total, get_matched = total.get, matched.get
            for doc_id, score in zip(*posting):
                total[doc_id] = get_total(doc_id, 0.0) + score
                matched[doc_id] = get_matched(doc_id, 0) + 1
        if len(terms) > 1:
            share = (1.0 - COVERAGE_FLOOR) / len(terms)
            for doc_id, count in matched.items():
                total[doc_id] *= COVERAGE_FLOOR + share * count
        for doc_id, bonus in self._name_bonus(query).items():
            total[doc_id] = total.get(doc_id, 0.0) + bonus
        return total

    def _dense_scores(self, terms: Sequence[str], query: str) -> list[float]:
        """:meth:`scores` as one score per document, computed with whole-array operations."""
        n = len(self.keys)
        total: list[float] = [0.0] * n
        count: list[int] = [0] * n
        for term in terms:
            found = self._dense(term)
            if found is not None:
                total = list(map(operator.add, total, found[0]))
                count = list(map(operator.add, count, found[1]))
        if len(terms) > 1:
            share = (1.0 - COVERAGE_FLOOR) / len(terms)
            table = [COVERAGE_FLOOR + share * c for c in range(len(terms) + 1)]
            total = list(map(operator.mul, total, map(table.__getitem__, count)))
        for doc_id, bonus in self._name_bonus(query).items():
            total[doc_id] += bonus
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
        terms = query_words(query)
        postings = [self._posting(term) for term in terms]
        size = sum(len(p[0]) for p in postings if p is not None)
        if size * DENSE_SHARE <= len(keys):
            found = [(keys[doc_id], score) for doc_id, score in self.scores(query).items()
                     if score > 0.0 and (allowed is None or allowed(keys[doc_id]))]
            return heapq.nsmallest(limit, found, key=lambda item: (-item[1], item[0]))
        total = self._dense_scores(terms, query)
        wanted = limit + 8
        while True:  # ties keep document order, which is key order (see build)
            best = heapq.nlargest(wanted, range(len(keys)), key=total.__getitem__)
            found = [(keys[i], total[i]) for i in best
                     if total[i] > 0.0 and (allowed is None or allowed(keys[i]))]
            if len(found) >= limit or len(best) < wanted or total[best[-1]] <= 0.0:
                break
            wanted *= 4
        return sorted(found, key=lambda item: (-item[1], item[0]))[:limit]

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
