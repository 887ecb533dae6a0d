"""A faster path to the safe YAML loader's result, for the frontmatter most skills have.

The full loader (``get_single_node`` + ``construct_document``) spends most of its time in
Python: a node object and the resolver's bookkeeping for every value, then the constructor's
generic dispatch. Most frontmatter is a mapping of text, lists of text and a few booleans and
numbers. :func:`load_plain` reads the same C parser's events (``CSafeLoader.get_event``, the
loader's public event interface that ``yaml.parse`` uses) and builds that data in one pass; each plain (unquoted) scalar's type is asked of
the loader's own public ``resolve`` (a plain word that is not one of YAML 1.1's boolean or null
words is text without asking), so a value means here what it means to the full loader.
It builds text, booleans, null and plain decimal numbers itself and gives up on anything else
(a tag, an anchor or alias, a merge key, a complex or repeated top-level key, a second
document, a date, ``0x1F``, ``1_000``, ``1e3``…): then the full loader runs from the start, so
the result, the warnings and every error are those of the full loader.
tests/manifest/test_manifest_fastpath.py checks the two agree on every document it makes.

It replaces a first version that subclassed PyYAML's C parser to override its resolver methods
and called the safe constructor's per-tag methods (PyYAML internals).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

FAST_FOR: type | None = getattr(yaml, "CSafeLoader", None)

_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
#: The YAML 1.1 words that are true (the others its resolver calls bool are false).
_TRUE = frozenset(("yes", "true", "on"))
#: The plain scalars opening with a letter that YAML 1.1 does not read as text (its booleans
#: and null); every other type opens with a digit, a sign, a dot or ``~ < =``.
_WORDS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF "
                   "null Null NULL".split())
#: The numbers built here, written as Python writes them (any other form: the full loader).
_PLAIN_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_PLAIN_FLOAT = re.compile(r"[-+]?[0-9]+\.[0-9]+")


class _NotPlain(Exception):
    """The document needs the full loader."""


def _resolver() -> Any:
    """The bound ``resolve`` of the loader the full path uses (its implicit types, including
    any a program added with ``yaml.add_implicit_resolver``)."""
    if FAST_FOR is None:
        return None
    loader = FAST_FOR("")
    try:
        return loader.resolve
    finally:
        loader.dispose()


_RESOLVE = _resolver()


def _scalar(event: Any) -> Any:
    """The value of a scalar event, as the safe loader builds it; raises :class:`_NotPlain`."""
    if event.anchor is not None or event.tag is not None:
        raise _NotPlain  # an anchor (maybe repeated) or a tag: the full loader decides
    value = event.value
    if not event.implicit[0]:
        return value  # quoted or a block scalar: text
    if value[:1].isalpha() and value not in _WORDS and value[:1].isascii():
        return value  # YAML 1.1 reads a plain word as text unless it is one of _WORDS
    tag = _RESOLVE(yaml.ScalarNode, value, event.implicit)
    if tag == _STR:
        return value
    if tag == _BOOL:
        return value.lower() in _TRUE
    if tag == _NULL:
        return None
    if tag == _INT and _PLAIN_INT.fullmatch(value):
        return int(value)
    if tag == _FLOAT and _PLAIN_FLOAT.fullmatch(value):
        return float(value)
    raise _NotPlain  # a date, 0x1F, 1_000, 1:20, .inf, <<, =…


def load_plain(text: str) -> tuple[Any, None] | None:
    """The safe loader's data for ``text`` and None (the second item is kept for callers
    that took the root node for a duplicate-key check: a repeated top-level key now gives up),
    or None when the full loader must decide. A YAML error of the parser is raised: the full
    loader's parser is the same and would fail the same way."""
    if FAST_FOR is None or _RESOLVE is None:
        return None
    try:
        loader = FAST_FOR(text)
    except Exception:  # noqa: BLE001 - e.g. text libyaml cannot take: the full loader decides
        return None
    try:
        return _build(loader.get_event), None
    except yaml.YAMLError:
        raise
    except _NotPlain:
        return None
    except Exception:  # noqa: BLE001 - e.g. text libyaml cannot take: the full loader decides
        return None
    finally:
        loader.dispose()


def _build(next_event: Any) -> Any:
    """The document's data from the loader's events (``get_event``; one pass, no recursion)."""
    # Each open collection: [container, pending key or _NO_KEY, top-level keys seen or None].
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0
    while True:
        event = next_event()
        kind = event.__class__
        if kind is yaml.StreamEndEvent:
            return root
        if kind is yaml.ScalarEvent:
            value: Any = _scalar(event)
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                raise _NotPlain
            if stack and stack[-1][1] is _NO_KEY and isinstance(stack[-1][0], dict):
                raise _NotPlain  # a collection as a key
            container: Any = {} if kind is yaml.MappingStartEvent else []
            stack.append([container, _NO_KEY, set() if not stack else None])
            continue
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            value = stack.pop()[0]
        elif kind is yaml.DocumentStartEvent:
            documents += 1
            if documents > 1:
                raise _NotPlain  # the full loader reports the second document
            continue
        elif kind is yaml.AliasEvent:
            raise _NotPlain
        else:  # stream start, document end
            continue
        if not stack:
            root = value
            continue
        top = stack[-1]
        if isinstance(top[0], list):
            top[0].append(value)
        elif top[1] is _NO_KEY:
            if not isinstance(value, str):
                raise _NotPlain  # a key that is not text (1, yes, null): the full loader
            if top[2] is not None:
                if value in top[2]:
                    raise _NotPlain  # a repeated top-level key: the full loader warns
                top[2].add(value)
            top[1] = value
        else:
            top[0][top[1]] = value
            top[1] = _NO_KEY


_NO_KEY = object()

__all__ = ["FAST_FOR", "load_plain"]
