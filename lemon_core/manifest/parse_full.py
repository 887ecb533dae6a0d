"""Load frontmatter text (YAML or TOML) safely, within fixed bounds.

YAML goes through PyYAML's ``CSafeLoader`` when libyaml is available, else ``SafeLoader``
(YAML 1.1 rules: ``yes``/``on`` are booleans, ``1.10`` is a number). On top of the safe loader:

* **depth**: a cheap upper bound (the count of ``[ { - : ?`` characters, each nesting level
  needs one) is taken first; only when it exceeds :data:`SAFE_COMPOSE_DEPTH` is the text
  scanned event by event, stopping at :data:`MAX_DEPTH` levels. libyaml composes nodes
  recursively and crashes the process on very deep input, so this check must come first.
* **aliases**: only when the text holds a ``*`` (no alias without one), the composed node graph
  is measured as it would expand (merge keys included, memoised, so a "billion laughs" costs
  its size on disk); more than :data:`MAX_EXPANDED_NODES` nodes, or a recursive alias, fails.
* **duplicate keys** at the top level are a warning (``duplicate_key``); the last one wins.
* **repair**: text that fails to parse is retried once with every ``key: value`` whose plain
  value contains ``": "`` (or ends with ``":"``) rewritten as a folded block scalar, the fix the
  Agent Skills client guide recommends; success adds a ``yaml_repaired`` warning.

With libyaml, a document without aliases first takes a leaner path to the same result (see
"the fast path" below); whatever it cannot answer exactly goes through the loader above.

TOML goes through ``tomllib`` (``tomli`` before Python 3.11). Every failure raises
:class:`~lemon_core.manifest.frontmatter.FrontmatterError` with a stable code.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from lemon_core.manifest import parse_fast as yaml_fast
from lemon_core.manifest.frontmatter import FrontmatterError
from lemon_core.plain import plain as plain_path

#: The loader class; tests swap in ``yaml.SafeLoader`` to cover the pure-Python path.
Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Deepest nesting of collections accepted in frontmatter.
MAX_DEPTH = 64
#: Below this bound on depth the text is composed directly (safe for libyaml's recursion).
SAFE_COMPOSE_DEPTH = 256
#: How newer libyaml reports nesting past its own limit, before lemon's check can count it.
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"
#: Most nodes a document with aliases may expand to.
MAX_EXPANDED_NODES = 20_000

#: A warning: (diagnostic code, message).
Note = tuple[str, str]

_OPENERS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSERS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
_KEY_LINE = re.compile(r"(?P<indent> *)(?P<key>[A-Za-z_][\w.-]*)[ \t]*:[ \t]+(?P<value>\S.*)")
_NOT_PLAIN = tuple("'\"[{|>&*!%@`#")


def load_yaml(text: str, *, first_line: int = 1) -> tuple[Any, list[Note]]:
    """Parse YAML ``text``; ``first_line`` is the file line ``text`` starts on (for messages).

    Returns the data (None for an empty document) and warnings as ``(code, message)`` pairs.
    Raises :class:`FrontmatterError` ``yaml_invalid``, ``frontmatter_too_deep``,
    ``yaml_aliases_too_large`` or ``yaml_recursive_alias``.
    """
    try:
        return _load_bounded(text, first_line)
    except FrontmatterError as original:
        if original.code != "yaml_invalid":
            raise
        repaired = repair_colon_values(text)
        if repaired is None:
            raise
        fixed_text, fixes = repaired
        try:
            data, warnings = _load_bounded(fixed_text, first_line)
        except FrontmatterError:
            raise original from None
        notes = [_repair_warning(key, first_line + line) for key, line in fixes]
        return data, notes + warnings


def load_toml(text: str, *, first_line: int = 1) -> dict[str, Any]:
    """Parse TOML ``text``; raises ``toml_invalid`` or ``frontmatter_too_deep``."""
    if sys.version_info >= (3, 11):  # imported here: most frontmatter is YAML
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"line (\d+)", message)
        if match:  # report the file's line, not the frontmatter's
            line = int(match.group(1)) + first_line - 1
            message = message.replace(match.group(0), f"line {line}", 1)
        raise FrontmatterError("toml_invalid", f"invalid TOML frontmatter: {message}") from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise FrontmatterError("toml_invalid", f"invalid TOML frontmatter: {exc}") from None


def repair_colon_values(text: str) -> tuple[str, list[tuple[str, int]]] | None:
    """Rewrite ``key: value`` lines whose plain value holds ``": "`` as folded block scalars.

    Continuation lines (more indented than the key) join the block. Returns the new text and
    the ``(key, 0-based line)`` pairs that changed, or None when no line needs it.
    """
    lines = text.split("\n")
    out: list[str] = []
    fixes: list[tuple[str, int]] = []
    index = 0
    while index < len(lines):
        match = _KEY_LINE.fullmatch(lines[index])
        value = match["value"].rstrip() if match else ""
        if match is None or not _needs_quoting(value):
            end = index + 1
            if match is not None and value.startswith(("|", ">")):
                end = _block_end(lines, index, len(match["indent"]))  # leave block text alone
            out += lines[index:end]
            index = end
            continue
        end = _block_end(lines, index, indent := len(match["indent"]))
        while end > index + 1 and not lines[end - 1].strip():
            end -= 1
        more = lines[index + 1 : end]
        block = min([_indent(line) for line in more if line.strip()] + [indent + 2])
        out += [f"{match['indent']}{match['key']}: >-", " " * block + value, *more]
        fixes.append((match["key"], index))
        index = end
    return ("\n".join(out), fixes) if fixes else None


def _block_end(lines: list[str], index: int, indent: int) -> int:
    """The index after the lines that continue line ``index`` (blank or more indented)."""
    end = index + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return end


def _needs_quoting(value: str) -> bool:
    if value.startswith(_NOT_PLAIN):
        return False
    value = value.split(" #", 1)[0].rstrip()
    return ": " in value or value.endswith(":")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _repair_warning(key: str, line: int) -> Note:
    message = (
        f"line {line}: the value of '{key}' contains ': ' without quotes, which is invalid "
        f'YAML; it was read as text anyway. Quote the value ({key}: "...")'
    )
    return "yaml_repaired", message


def _load_bounded(text: str, first_line: int) -> tuple[Any, list[Note]]:
    """One bounded parse; YAML errors become ``yaml_invalid``."""
    try:
        _check_depth(text)
        if Loader is yaml_fast.FAST_FOR and "*" not in text and not plain_path("yaml"):
            plain = yaml_fast.load_plain(text)
            if plain is not None:
                data, node = plain
                return data, [] if node is None else _duplicate_keys(node, first_line)
        loader = Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None, []
            warnings = _duplicate_keys(node, first_line)
            if "*" in text:
                _check_expansion(node)
            return loader.construct_document(node), warnings
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        if _LIBYAML_TOO_DEEP in str(exc):  # libyaml >= 0.2.5 (PyYAML 6.0.4 wheels) stops first
            raise _too_deep() from None
        raise FrontmatterError("yaml_invalid", _yaml_message(exc, first_line)) from None
    except RecursionError:
        raise _too_deep() from None
    except (ValueError, TypeError, OverflowError) as exc:  # e.g. a date like 2024-13-45
        raise FrontmatterError("yaml_invalid", f"invalid YAML frontmatter: {exc}") from None


def _check_depth(text: str) -> None:
    if len(text) <= SAFE_COMPOSE_DEPTH:  # the bound below cannot exceed the length
        return
    count = text.count
    if count("[") + count("{") + count("-") + count(":") + count("?") <= SAFE_COMPOSE_DEPTH:
        return
    depth = 0
    for event in yaml.parse(text, Loader=Loader):
        if isinstance(event, _OPENERS):
            depth += 1
            if depth > MAX_DEPTH:
                raise _too_deep()
        elif isinstance(event, _CLOSERS):
            depth -= 1


def _too_deep() -> FrontmatterError:
    return FrontmatterError(
        "frontmatter_too_deep",
        f"the frontmatter nests more than {MAX_DEPTH} levels deep; flatten it",
    )


def _duplicate_keys(node: Node, first_line: int) -> list[Note]:
    """One warning naming the top-level keys written more than once (the last value wins)."""
    if not isinstance(node, MappingNode):
        return []
    seen: set[str] = set()
    repeats: list[str] = []
    for key_node, _ in node.value:
        if not isinstance(key_node, ScalarNode) or key_node.tag.endswith(":merge"):
            continue
        if key_node.value in seen:
            repeats.append(f"'{key_node.value}' (line {first_line + key_node.start_mark.line})")
        seen.add(key_node.value)
    if not repeats:
        return []
    shown = ", ".join(repeats[:5]) + (f" and {len(repeats) - 5} more" if len(repeats) > 5 else "")
    plural = "keys" if len(repeats) > 1 else "key"
    message = f"duplicate {plural} {shown}; the last value is used, remove the others"
    return [("duplicate_key", message)]


def _check_expansion(root: Node) -> None:
    """Measure the node graph as it expands through aliases, without expanding it."""
    sizes: dict[int, int] = {}
    path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        ident = id(node)
        children = _children(node)
        if done:
            size = 1 + sum(sizes[id(child)] for child in children)
            if size > MAX_EXPANDED_NODES:
                raise FrontmatterError(
                    "yaml_aliases_too_large",
                    f"YAML aliases expand the frontmatter to more than {MAX_EXPANDED_NODES} "
                    "values; write the values out instead of repeating aliases",
                )
            sizes[ident] = size
            path.discard(ident)
        elif ident in path:
            raise FrontmatterError(
                "yaml_recursive_alias", "a YAML alias refers to itself; remove the recursion"
            )
        elif ident not in sizes:
            path.add(ident)
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [child for pair in node.value for child in pair]
    return []


def _yaml_message(exc: yaml.YAMLError, first_line: int) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        where = f"line {first_line + mark.line}, column {mark.column + 1}"
        context = f"{exc.context}, " if exc.context else ""
        return f"invalid YAML frontmatter at {where}: {context}{exc.problem}"
    return f"invalid YAML frontmatter: {exc}"


__all__ = [
    "MAX_DEPTH",
    "MAX_EXPANDED_NODES",
    "SAFE_COMPOSE_DEPTH",
    "load_toml",
    "load_yaml",
    "repair_colon_values",
]
