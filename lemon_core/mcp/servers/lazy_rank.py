"""``find_skills`` ranking of ``lazy-skills-mcp``, as its interface describes it.

A skill matches when its name or description contains any of the whitespace-separated query
terms, ignoring case and hyphens. Matches are ranked by BM25 (k1 1.2, b 0.75) with the
non-negative Lucene idf, ``ln(1 + (N - n + 0.5) / (n + 0.5))``, so a term in nearly every
description barely counts; an occurrence in the name counts double. Ties go by name. An empty
query returns every skill, by name.

Containment is decided per whitespace-separated word of the text (a term holds no white space,
so it can only ever occur inside one word): the index keeps each distinct word's postings, and
a query scans the vocabulary once per term instead of every description.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Sequence

K1 = 1.2
B = 0.75
MAX_RESULTS = 10


def normalise(text: str) -> str:
    """Lower case, hyphens dropped: ``Nix-Flakes`` and ``nixflakes`` are the same."""
    return text.lower().replace("-", "")


def terms_of(query: str | None) -> list[str]:
    """The query's distinct terms, normalised, in order."""
    if not query:
        return []
    return [t for t in dict.fromkeys(normalise(w) for w in query.split()) if t]


class LazyIndex:
    """The postings of every skill's name and description (``names`` in catalog order)."""

    def __init__(self, names: Sequence[str], descriptions: Sequence[str]) -> None:
        self.names = list(names)
        #: word -> the documents holding it, each repeated once per occurrence
        self._name_postings: dict[str, list[int]] = defaultdict(list)
        self._desc_postings: dict[str, list[int]] = defaultdict(list)
        self._lengths: list[int] = []
        for doc, (name, description) in enumerate(zip(names, descriptions, strict=True)):
            name_words = normalise(name).split()
            desc_words = normalise(description).split()
            for word in name_words:
                self._name_postings[word].append(doc)
            for word in desc_words:
                self._desc_postings[word].append(doc)
            self._lengths.append(len(name_words) + len(desc_words))
        self._name_words = tuple(self._name_postings)
        self._desc_words = tuple(self._desc_postings)
        average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 1.0
        self._norms = [K1 * (1 - B + B * length / average) for length in self._lengths]
        #: term -> {doc: the term's BM25 contribution}, computed at its first use
        self._scores: dict[str, dict[int, float]] = {}

    def __len__(self) -> int:
        return len(self.names)

    def _frequencies(self, term: str) -> Counter[int]:
        """doc -> weighted occurrences of ``term`` (name twice, description once), counted
        by ``Counter`` over the postings of every word holding the term."""
        bag: list[int] = []
        for words, postings, weight in ((self._name_words, self._name_postings, 2),
                                        (self._desc_words, self._desc_postings, 1)):
            for word in [w for w in words if term in w]:
                times = word.count(term) * weight
                bag.extend(postings[word] * times if times > 1 else postings[word])
        return Counter(bag)

    def _term_scores(self, term: str) -> dict[int, float]:
        cached = self._scores.get(term)
        if cached is not None:
            return cached
        frequencies = self._frequencies(term)
        n = len(frequencies)
        idf = math.log(1 + (len(self.names) - n + 0.5) / (n + 0.5))
        norms, k1 = self._norms, K1 + 1
        scores = {doc: idf * f * k1 / (f + norms[doc]) for doc, f in frequencies.items()}
        if len(self._scores) >= 1024:
            self._scores.clear()
        self._scores[term] = scores
        return scores

    def search(self, query: str | None, limit: int | None = MAX_RESULTS) -> list[int]:
        """Document numbers, best first (every document by name for an empty query)."""
        terms = terms_of(query)
        if not terms:
            return sorted(range(len(self.names)), key=self.names.__getitem__)
        per_term = [self._term_scores(term) for term in terms]
        if len(per_term) == 1:
            scores = per_term[0]
        else:
            scores = dict(per_term[0])
            for other in per_term[1:]:
                for doc, value in other.items():
                    scores[doc] = scores.get(doc, 0.0) + value
        names = self.names
        if limit is None or len(scores) <= limit:
            return sorted(scores, key=lambda d: (-scores[d], names[d]))
        # the limit-th best score, then every document reaching it, sorted with ties by name
        floor = heapq.nlargest(limit, scores.values())[-1]
        best = [doc for doc, value in scores.items() if value >= floor]
        best.sort(key=lambda d: (-scores[d], names[d]))
        return best[:limit]


__all__ = ["K1", "MAX_RESULTS", "B", "LazyIndex", "normalise", "terms_of"]
