"""A faster path to the safe YAML loader's result, for the frontmatter most skills have.

``Loader(text).get_single_node()`` + ``construct_document`` spend most of their time in
Python: the resolver's bookkeeping for every node and the constructor's generic dispatch
(state generators, recursion guards, a method per scalar). For libyaml and a document
without aliases, :func:`load_plain` composes with the same C parser and an equivalent, leaner
resolver, then builds the data in one recursive pass for the tags that plain frontmatter
uses. Anything else gives up, and ``yaml_loader`` runs the full loader from the start; so
the result, the warnings and every error are those of the full loader.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
import yaml.constructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

FAST_FOR: type | None = getattr(yaml, "CSafeLoader", None)

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


class _NotPlain(Exception):
    """The document needs the full loader."""


def _resolver_table() -> dict[Any, tuple[tuple[str, re.Pattern[str]], ...]] | None:
    """The safe loader's implicit resolvers by first character (key None: any other), as
    ``Resolver.resolve`` tries them; None when that resolver is not the plain one the fast
    resolver mirrors (path resolvers, other default tags)."""
    loader = FAST_FOR
    if (
        loader is None
        or loader.yaml_path_resolvers
        or (loader.DEFAULT_SCALAR_TAG, loader.DEFAULT_SEQUENCE_TAG) != (_STR, _SEQ)
        or loader.DEFAULT_MAPPING_TAG != _MAP
    ):
        return None
    resolvers = loader.yaml_implicit_resolvers
    wildcard = tuple(resolvers.get(None, ()))
    table: dict[Any, tuple[tuple[str, re.Pattern[str]], ...]] = {
        first: tuple(found) + wildcard for first, found in resolvers.items() if first is not None
    }
    table[None] = wildcard
    return table


_RESOLVERS = _resolver_table()
if _RESOLVERS is None:  # pragma: no cover - a PyYAML this module does not know
    FAST_FOR = None

#: The scalar constructors of the safe loader that depend on nothing but the node.
_SCALAR_CONSTRUCTORS: dict[str, Any] = {}
if FAST_FOR is not None:
    _constructor = yaml.constructor.SafeConstructor()
    _pure = {"construct_yaml_null", "construct_yaml_bool", "construct_yaml_int",
             "construct_yaml_float", "construct_yaml_timestamp",
             "construct_yaml_binary"}  # fmt: skip
    for _tag, _function in FAST_FOR.yaml_constructors.items():
        if getattr(_function, "__name__", None) in _pure and _function is getattr(
            yaml.constructor.SafeConstructor, _function.__name__
        ):
            _SCALAR_CONSTRUCTORS[_tag] = _function.__get__(_constructor)

    class _PlainParser(yaml.cyaml.CParser):  # type: ignore[misc]
        """libyaml's composer with the resolver that ``Resolver`` amounts to for the safe
        loader (no path resolvers: descending and ascending keep no state)."""

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

        def resolve(
            self,
            kind: type,
            value: str,
            implicit: Any,
            _table: Any = _RESOLVERS.get,  # type: ignore[union-attr]
            _wildcard: Any = _RESOLVERS[None],  # type: ignore[index]
        ) -> str:
            if kind is ScalarNode:
                if implicit[0]:
                    for tag, regexp in _table(value[:1], _wildcard):
                        if regexp.match(value):
                            return tag  # type: ignore[no-any-return]
                return _STR
            return _SEQ if kind is SequenceNode else _MAP


def load_plain(text: str) -> tuple[Any, Node | None] | None:
    """The safe loader's data for a document without aliases, and the root node when its
    top-level keys still need the duplicate check (None when each key is distinct text); None
    when the full loader must decide. A YAML error of the parser is raised: the full loader
    would meet the same."""
    try:
        node = _PlainParser(text).get_single_node()
    except yaml.YAMLError:
        raise  # the full loader's parser is the same: it would fail the same way
    except Exception:  # noqa: BLE001 - e.g. text libyaml cannot take: the full loader decides
        return None
    try:
        if node is None:
            return None, None
        if node.__class__ is not MappingNode or node.tag != _MAP:
            return _build(node), None
        data, text_keys = _build_mapping(node)
    except Exception:  # noqa: BLE001 - another tag, a bad value, ...: the full loader decides
        return None
    if text_keys and len(data) == len(node.value):
        return data, None  # no key written twice (each key is its scalar's own text)
    return data, node


def _build(node: Node) -> Any:
    """The data the safe constructor builds from ``node``, for plain tags; else raises."""
    tag = node.tag
    kind = node.__class__
    if kind is ScalarNode:
        if tag == _STR:
            return node.value
        return _SCALAR_CONSTRUCTORS[tag](node)  # a KeyError for other tags
    if kind is MappingNode and tag == _MAP:
        return _build_mapping(node)[0]
    if kind is SequenceNode and tag == _SEQ:
        return [_build(child) for child in node.value]
    raise _NotPlain


def _build_mapping(node: MappingNode) -> tuple[dict[Any, Any], bool]:
    """A ``map`` node's data, and whether every key is plain text (tagged ``str``)."""
    data = {}
    text_keys = True
    for key_node, value_node in node.value:
        if key_node.__class__ is not ScalarNode:
            raise _NotPlain  # a complex key may be unhashable
        if key_node.tag == _STR:
            key = key_node.value
        else:  # a KeyError for merge (<<) and value (=) keys, which the full loader handles
            key = _SCALAR_CONSTRUCTORS[key_node.tag](key_node)
            text_keys = False
        data[key] = _build(value_node)
    return data, text_keys


__all__ = ["FAST_FOR", "load_plain"]
