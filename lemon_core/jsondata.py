"""Bounded JSON parsing: any bytes in, a value or one :class:`~lemon_core.fsio.FileProblem` out.

Python's ``json`` module recurses once per nesting level (100,000 nested ``[`` end in a
``RecursionError``), turns a 5,000-digit integer into a ``ValueError`` (the interpreter's digit
limit, which the environment may lift, making a long integer cost quadratic time), accepts
``NaN`` and ``Infinity`` and keeps the last of two equal keys. Every JSON file lemon reads, its
own (``skills.json``, ``skills.lock.json``, ``mcp.json``) or another tool's (through
:mod:`lemon_core.mcp.importer_kit.jsonc`), is parsed here instead, with these rules (the cache
is sealed: only a file lemon wrote itself is ever parsed). A caller may loosen a bound or the
duplicate-key rule, and words the problem its own way from a :class:`JsonProblem`'s fields:

- **Depth** is checked before parsing: strings are set aside and the brackets counted, so a
  document nested deeper than ``max_depth`` (default :data:`MAX_DEPTH`) is refused without ever
  recursing (code ``too_deep``). The check costs a few passes over the bytes in C;
  ``max_depth=None`` (:data:`PYTHON_DEPTH`) skips it and reports the parser's own recursion
  limit as ``too_deep`` instead.
- **Integers** longer than ``max_int_digits`` (default :data:`MAX_INT_DIGITS`, sign not counted)
  are refused (``int_too_long``) before any conversion, whatever the interpreter's own limit.
- **NaN, Infinity and -Infinity** are not JSON and are refused (``not_json``).
- **Duplicate keys** in one object are refused by default (``duplicate_key``; the message names
  the key, cut to 40 characters): in a file a person edits, the second ``"disabled"`` silently
  replacing the first is a mistake to report, not a choice to guess. ``duplicates="last"`` keeps
  Python's rule (the last one wins), for another tool's files whose own parser does the same.
- **Text** must be UTF-8; a leading BOM is dropped (``invalid_utf8`` otherwise).
- Syntax errors are ``invalid_json`` with the parser's reason, line and column.

Every problem is a :class:`~lemon_core.fsio.FileProblem` of kind ``"parse"`` whose message holds
no file content (beyond a duplicated key's name) and no path: the caller names the file.
:func:`load_file` reads the file through the safe reader (:mod:`lemon_core.fsio.read`) first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from lemon_core.fsio.read import MAX_FILE_BYTES, FileProblem, decode_utf8, read_bytes

#: How deeply arrays and objects may nest (lemon's own files need fewer than 10 levels).
MAX_DEPTH = 64
#: How many digits an integer may have (a nanosecond timestamp has 19).
MAX_INT_DIGITS = 100

#: Bounds as loose as Python's own parser, for files whose rules predate this module
#: (``mcp.json``, other tools' JSON and JSONC, which can be tens of MB): no depth pre-check (the
#: parser's own recursion guard reports ``too_deep``, at no extra pass over the text) and its
#: default limit on integer digits.
PYTHON_DEPTH = None
PYTHON_INT_DIGITS = 4300

Duplicates = Literal["error", "last"]

_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_UNIFY = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_OPEN = ord("[")


class JsonProblem(FileProblem):
    """A parse problem, with what a caller needs to word it its own way: ``line``, ``column``
    and the parser's ``reason`` for ``invalid_json``; the ``key`` for ``duplicate_key``."""

    def __init__(self, code: str, message: str, *, line: int | None = None,
                 column: int | None = None, reason: str | None = None,
                 key: str | None = None) -> None:
        super().__init__("parse", message, code)
        self.line, self.column, self.reason, self.key = line, column, reason, key


class _Refused(Exception):
    def __init__(self, code: str, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.key = key


def _problem(code: str, message: str) -> JsonProblem:
    return JsonProblem(code, message)


def nesting_exceeds(text: str, max_depth: int) -> bool:
    """Whether the JSON ``text`` nests arrays and objects deeper than ``max_depth``.

    Brackets inside strings are ignored. For text that is not JSON the answer only has to be
    safe: a parser that reads up to where this says "no" never nests deeper than the limit.
    """
    outside = _STRING.sub("", text).encode("utf-8", "surrogatepass")
    brackets = outside.translate(_UNIFY, _NOT_BRACKETS)
    remaining = brackets
    for _ in range(max_depth):  # each pass removes the innermost level everywhere
        if not remaining:
            return False
        shorter = remaining.replace(b"[]", b"")
        if shorter == remaining:  # only unmatched brackets are left: "]]][[["
            if remaining[0] != _OPEN:  # the parser fails at that first closer, not deeper
                return False
            break
        remaining = shorter
    if not remaining:
        return False
    depth = 0  # unbalanced or deep: count exactly, stopping as soon as the answer is known
    for char in brackets:
        if char == _OPEN:
            depth += 1
            if depth > max_depth:
                return True
        else:
            depth -= 1
            if depth < 0:  # a stray closer: the parser fails here, no deeper than seen
                return False
    return False


def _int_parser(max_digits: int) -> Callable[[str], int]:
    def parse_int(digits: str) -> int:
        if len(digits) - digits.startswith("-") > max_digits:
            raise _Refused("int_too_long", f"holds an integer longer than {max_digits} digits")
        return int(digits)

    return parse_int


def _refuse_constant(name: str) -> Any:
    raise _Refused("not_json", f"holds {name}, which is not JSON")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = key if len(key) <= 40 else key[:40] + "…"
                raise _Refused("duplicate_key", f"an object holds the key {shown!r} twice", key)
            seen.add(key)
    return document


def loads(data: bytes | str, *, max_depth: int | None = MAX_DEPTH,
          max_int_digits: int = MAX_INT_DIGITS, duplicates: Duplicates = "error") -> Any:
    """The JSON value in ``data`` (bytes are decoded as UTF-8).

    :raises FileProblem: kind "parse", with a code from the module docstring (a
        :class:`JsonProblem`, except ``invalid_utf8``).
    """
    text = decode_utf8(data) if isinstance(data, bytes) else data
    if max_depth is not None and nesting_exceeds(text, max_depth):
        raise _problem("too_deep", f"nested deeper than {max_depth} levels; not parsed")
    try:
        return json.loads(
            text,
            parse_int=_int_parser(max_int_digits),
            parse_constant=_refuse_constant,
            object_pairs_hook=_unique_pairs if duplicates == "error" else None,
        )
    except _Refused as refused:
        raise JsonProblem(refused.code, refused.message, key=refused.key) from None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise JsonProblem("invalid_json", f"not valid JSON ({exc.msg}: {where})",
                          line=exc.lineno, column=exc.colno, reason=exc.msg) from None
    except RecursionError:  # only without the depth check (max_depth=None)
        raise _problem("too_deep", "nested too deeply; not parsed") from None
    except ValueError as exc:  # any other refusal inside the decoder
        raise _problem("invalid_json", f"not valid JSON ({type(exc).__name__})") from None


def load_file(path: Path | str, max_bytes: int = MAX_FILE_BYTES, *, missing_ok: bool = True,
              empty: Callable[[], Any] | None = None, **options: Any) -> Any:
    """The JSON value of the file at ``path``, read through the safe reader; None when it does
    not exist (with ``missing_ok``). A file holding only whitespace gives ``empty()`` when
    ``empty`` is given (``empty=dict`` for a settings file), else it is ``invalid_json``.

    ``options`` are those of :func:`loads`. :raises FileProblem: a read or parse problem.
    """
    data = read_bytes(path, max_bytes, missing_ok=missing_ok)
    if data is None:
        return None
    if empty is not None and not data.strip():
        return empty()
    return loads(data, **options)


__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "PYTHON_DEPTH",
    "PYTHON_INT_DIGITS",
    "JsonProblem",
    "load_file",
    "loads",
    "nesting_exceeds",
]
