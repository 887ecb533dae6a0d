"""Package names that imitate popular ones (typosquatting), against the popular PyPI and npm
names shipped in ``popular/`` (public download rankings; ``scripts/popular_packages.py``
says where from).

A name imitates a popular one when it is not itself among the popular names and it is

- within a small Damerau-Levenshtein distance of one of the most popular (one edit for
  names of 5 to 9 characters, two from 10; shorter names are too close to everything),
- the same name with other separators (``python_dateutil``, ``pythondateutil``), or
- a popular name with a prefix or suffix that typosquats use (``python-requests``,
  ``requests-py``, ``node-lodash``, ``lodash-js``).

The lists are read once, on first use (the first dependency looked up).
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import NamedTuple

#: How many of the most downloaded names are imitation targets (every listed name is real).
TARGETS = 3000
_AFFIXES = {
    "pypi": (("python-", "python3-", "py-", "py"), ("-py", "-python", "-python3", "py", "-lib")),
    "npm": (("node-", "js-"), ("-js", ".js", "js", "-node", "-npm")),
}
_SEPARATORS = re.compile(r"[-_.]+")


class Lookalike(NamedTuple):
    """``name`` imitates the popular ``target``; ``how`` says in what way."""

    name: str
    target: str
    how: str


def normalise(name: str, ecosystem: str) -> str:
    """The name as the registry compares it (PyPI: PEP 503; npm: lower case)."""
    name = name.strip().lower()
    return _SEPARATORS.sub("-", name) if ecosystem == "pypi" else name


@functools.lru_cache(maxsize=2)
def popular(ecosystem: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The ranked names of ``ecosystem`` (``pypi`` or ``npm``) and the set of them."""
    text = resources.files(__package__).joinpath("popular", f"{ecosystem}.txt").read_text(
        encoding="utf-8")
    ranked = tuple(line for line in text.splitlines() if line and not line.startswith("#"))
    return ranked, frozenset(ranked)


def _budget(length: int) -> int:
    return 0 if length < 5 else 1 if length < 10 else 2


def _deletions(word: str, depth: int) -> set[str]:
    found = {word}
    edge = {word}
    for _ in range(depth):
        edge = {w[:i] + w[i + 1:] for w in edge for i in range(len(w))}
        found |= edge
    return found


class _Index(NamedTuple):
    by_deletion: dict[str, list[str]]  # the targets by each string one deletion leaves
    by_length: dict[int, list[str]]  # the targets of each length
    by_bare: dict[str, str]  # the targets by their separator-free form
    rank: dict[str, int]


@functools.lru_cache(maxsize=2)
def _index(ecosystem: str) -> _Index:
    """The targets, indexed so that a query is compared with the few within reach: every
    string one deletion leaves (a name one insertion, deletion, substitution or swap away
    shares one; two edits with one insertion too, from the query's two deletions), their
    lengths (two substitutions), their separator-free form."""
    ranked, _ = popular(ecosystem)
    index = _Index({}, {}, {}, {})
    for position, target in enumerate(ranked[:TARGETS]):
        index.rank[target] = position
        index.by_bare.setdefault(re.sub(r"[-_.]", "", target), target)
        if len(target) < 5:
            continue
        index.by_length.setdefault(len(target), []).append(target)
        for variant in _deletions(target, 1):
            index.by_deletion.setdefault(variant, []).append(target)
    return index


def distance(a: str, b: str) -> int:
    """The optimal-string-alignment (restricted Damerau-Levenshtein) distance."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = char_a != char_b
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


@functools.lru_cache(maxsize=4096)
def lookalike(name: str, ecosystem: str) -> Lookalike | None:
    """The popular package ``name`` imitates, or None (a popular name itself, a short name,
    or one that resembles none)."""
    norm = normalise(name, ecosystem)
    ranked, known = popular(ecosystem)
    if norm in known or len(norm) < 4 or len(norm) > 80:
        return None
    index = _index(ecosystem)
    bare = re.sub(r"[-_.]", "", norm)
    if bare in index.by_bare and len(bare) >= 5:
        return Lookalike(name, index.by_bare[bare], "the same name with other separators")
    prefixes, suffixes = _AFFIXES[ecosystem]
    targets = frozenset(ranked[:TARGETS])
    for prefix in prefixes:
        rest = norm[len(prefix):]
        if norm.startswith(prefix) and rest in targets and len(rest) >= 4:
            return Lookalike(name, rest, f"the popular name with '{prefix}' before it")
    for suffix in suffixes:
        rest = norm[:-len(suffix)]
        if norm.endswith(suffix) and rest in targets and len(rest) >= 4:
            return Lookalike(name, rest, f"the popular name with '{suffix}' after it")
    budget = _budget(len(norm))
    if not budget:
        return None
    candidates = {target for variant in _deletions(norm, budget)
                  for target in index.by_deletion.get(variant, ())}
    if budget > 1:  # two substitutions: the targets of the same length
        candidates.update(target for target in index.by_length.get(len(norm), ())
                          if sum(map(str.__ne__, norm, target)) == 2)
    best: tuple[int, int, str] | None = None
    for target in candidates:
        if target[0] != norm[0] and target[:2] != norm[1::-1]:
            continue  # typosquats keep the first letter (latch is not hatch): only a swap moves it
        allowed = min(budget, _budget(len(target)))
        if abs(len(target) - len(norm)) > allowed:
            continue
        gap = distance(norm, target)
        if 0 < gap <= allowed and (best is None or (gap, index.rank[target]) < best[:2]):
            best = (gap, index.rank[target], target)
    if best is None:
        return None
    edits = "one edit" if best[0] == 1 else f"{best[0]} edits"
    return Lookalike(name, best[2], f"{edits} away")


#: Import names that differ from the distribution's (``import yaml`` is PyYAML).
IMPORT_NAMES = {
    "beautifulsoup4": "bs4", "scikit-learn": "sklearn", "pyyaml": "yaml", "pillow": "PIL",
    "python-dateutil": "dateutil", "opencv-python": "cv2", "python-dotenv": "dotenv",
    "pyjwt": "jwt", "python-docx": "docx", "python-pptx": "pptx", "pymupdf": "fitz",
    "protobuf": "google.protobuf", "attrs": "attr", "pycryptodome": "Crypto",
    "scikit-image": "skimage", "msgpack-python": "msgpack", "pyserial": "serial",
    "typing-extensions": "typing_extensions", "google-generativeai": "google.generativeai",
}


def import_name(target: str, ecosystem: str) -> str:
    """The module or package a program imports to use ``target``."""
    if ecosystem == "npm":
        return target
    return IMPORT_NAMES.get(target, target.replace("-", "_"))


__all__ = ["TARGETS", "Lookalike", "distance", "import_name", "lookalike", "normalise",
           "popular"]
