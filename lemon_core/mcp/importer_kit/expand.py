"""Variable expansion in imported MCP configuration.

Two unrelated syntaxes:

- ``${VAR}`` / ``${VAR:-default}`` (Claude Code, omp, Gemini CLI, Cursor, Windsurf, VS Code,
  root files): applied to a parsed string value. :func:`expand_vars`.
- OpenCode's ``{env:VAR}`` / ``{file:path}``: applied to the raw file text *before* parsing.
  :func:`substitute_opencode`; :func:`mark_opencode` does the same but lets the caller tell,
  after parsing, which strings hold substituted text (:class:`Substituted`): a server name, or
  any other field printed without ``--reveal``, must never show a variable or a file.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from lemon_core.mcp.importer_kit import jsonc

# NAME: one or more characters other than "}" and ":"; the default runs to the first "}".
# ``${input:x}`` and ``${env:X}`` therefore never match and stay literal, as does bare ``$VAR``.
_DOLLAR = re.compile(r"\$\{(?P<name>[^}:]+)(?::-(?P<default>[^}]*))?\}")
_OPENCODE = re.compile(r"\{(?P<kind>env|file):(?P<arg>[^}\"\n\r]+)\}")


def expand_vars(
    value: str, env: Mapping[str, str], predefined: Mapping[str, str] | None = None
) -> str:
    """Expand ``${VAR}`` and ``${VAR:-default}`` in ``value`` in one pass (no re-expansion).

    - ``${VAR}``: the variable's value when it is set (even to ""); unset stays literal.
    - ``${VAR:-default}``: the value when set and non-empty, else ``default`` (POSIX ``:-``),
      so ``${VAR:-}`` gives "" for an unset variable.
    - ``predefined`` names (VS Code's ``workspaceFolder``) win over the environment.
    - bare ``$VAR``, ``${input:…}``, ``${env:…}`` and malformed forms stay literal.
    """
    if "${" not in value:
        return value

    def replace(match: re.Match[str]) -> str:
        name, default = match.group("name"), match.group("default")
        if predefined and name in predefined:
            return predefined[name]
        current = env.get(name)
        if default is not None:
            return current if current else default
        return current if current is not None else match.group()

    return _DOLLAR.sub(replace, value)


class SubstitutionError(Exception):
    """A ``{file:…}`` reference could not be read; the message names the path, never content."""


#: ``read_file(path_text) -> contents``; raises :class:`SubstitutionError` when it cannot.
FileReader = Callable[[str], str]


class Substituted(str):
    """A string that holds text of an OpenCode ``{env:}`` / ``{file:}`` substitution: never
    show it outside ``--reveal`` (a name that is one is skipped as ``substituted_name``)."""

    __slots__ = ()


def plain(value: Any) -> Any:
    """``value`` with every :class:`Substituted` turned back into a plain ``str``."""
    if isinstance(value, str):
        return str.__str__(value) if isinstance(value, Substituted) else value
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


class Marked:
    """The result of :func:`mark_opencode`: ``text`` to parse, then :meth:`resolve` the data."""

    def __init__(self, text: str, values: list[str], nonce: str) -> None:
        self.text = text
        self.values = values
        self._mark = re.compile("\x00" + nonce + r"(\d+)\x00")

    def _string(self, value: str) -> str:
        if "\x00" not in value:
            return value
        resolved, count = self._mark.subn(lambda m: self.values[int(m.group(1))], value)
        return Substituted(resolved) if count else value

    def resolve(self, data: Any) -> Any:
        """The parsed data with every mark replaced by its value; a string (object keys
        included) that held one becomes a :class:`Substituted`. Equal to parsing the text
        :func:`substitute_opencode` gives (later duplicate keys win, as in JSON)."""
        if isinstance(data, str):
            return self._string(data)
        if isinstance(data, dict):
            return {self._string(key): self.resolve(item) for key, item in data.items()}
        if isinstance(data, list):
            return [self.resolve(item) for item in data]
        return data


def mark_opencode(text: str, env: Mapping[str, str], read_file: FileReader) -> Marked:
    """As :func:`substitute_opencode`, except that a token inside a JSON string becomes a mark
    (``\\u0000<nonce><n>\\u0000``) that :meth:`Marked.resolve` replaces after parsing. A token
    outside strings is substituted at once: JSON-escaped, it can never make a string there
    (only numbers, ``true``/``false``/``null`` or punctuation).
    """
    nonce = secrets.token_hex(8)
    values: list[str] = []

    def mark(value: str) -> str:
        values.append(value)
        return f"\\u0000{nonce}{len(values) - 1}\\u0000"

    return Marked(_substitute(text, env, read_file, mark), values, nonce)


def substitute_opencode(text: str, env: Mapping[str, str], read_file: FileReader) -> str:
    """OpenCode's substitution on a raw JSONC text, before it is parsed.

    ``{env:VAR}`` becomes the variable's value ("" when unset) and ``{file:path}`` the file's
    trimmed contents; both are JSON-escaped, so a value with quotes, backslashes or newlines
    keeps the text valid inside a string. Tokens inside comments (``//`` lines and ``/* */``)
    are left untouched, and their files are never read.

    :raises SubstitutionError: when ``read_file`` cannot read a referenced file.
    """
    return _substitute(text, env, read_file, None)


def _substitute(
    text: str,
    env: Mapping[str, str],
    read_file: FileReader,
    in_string: Callable[[str], str] | None,
) -> str:
    """The substitution; ``in_string(value)``, when given, replaces tokens inside strings."""
    if "{env:" not in text and "{file:" not in text:
        return text

    def value_of(match: re.Match[str]) -> str:
        arg = match.group("arg")
        return env.get(arg, "") if match.group("kind") == "env" else read_file(arg).strip()

    def replace(match: re.Match[str]) -> str:
        return json.dumps(value_of(match))[1:-1]

    def replace_in_string(match: re.Match[str]) -> str:
        return in_string(value_of(match)) if in_string is not None else replace(match)

    out: list[str] = []
    code: list[str] = []  # adjacent code pieces (a lone "/" splits them) are joined first
    for kind, piece in jsonc.segments(text):
        if kind == "code":
            code.append(piece)
            continue
        if code:
            out.append(_OPENCODE.sub(replace, "".join(code)))
            code.clear()
        out.append(piece if kind == "comment" else _OPENCODE.sub(replace_in_string, piece))
    if code:
        out.append(_OPENCODE.sub(replace, "".join(code)))
    return "".join(out)


__all__ = [
    "FileReader",
    "Marked",
    "Substituted",
    "SubstitutionError",
    "expand_vars",
    "mark_opencode",
    "plain",
    "substitute_opencode",
]
