"""Variable expansion in imported MCP configuration.

Two unrelated syntaxes:

- ``${VAR}`` / ``${VAR:-default}`` (Claude Code, omp, Gemini CLI, Cursor, Windsurf, VS Code,
  root files): applied to a parsed string value. :func:`expand_vars`.
- OpenCode's ``{env:VAR}`` / ``{file:path}``: applied to the raw file text *before* parsing.
  :func:`substitute_opencode`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

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


def substitute_opencode(text: str, env: Mapping[str, str], read_file: FileReader) -> str:
    """OpenCode's substitution on a raw JSONC text, before it is parsed.

    ``{env:VAR}`` becomes the variable's value ("" when unset) and ``{file:path}`` the file's
    trimmed contents; both are JSON-escaped, so a value with quotes, backslashes or newlines
    keeps the text valid inside a string. Tokens inside comments (``//`` lines and ``/* */``)
    are left untouched, and their files are never read.

    :raises SubstitutionError: when ``read_file`` cannot read a referenced file.
    """
    if "{env:" not in text and "{file:" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        arg = match.group("arg")
        if match.group("kind") == "env":
            value = env.get(arg, "")
        else:
            value = read_file(arg).strip()
        return json.dumps(value)[1:-1]

    out: list[str] = []
    code: list[str] = []  # adjacent code pieces (a lone "/" splits them) are joined first
    for kind, piece in jsonc.segments(text):
        if kind == "code":
            code.append(piece)
            continue
        if code:
            out.append(_OPENCODE.sub(replace, "".join(code)))
            code.clear()
        out.append(piece if kind == "comment" else _OPENCODE.sub(replace, piece))
    if code:
        out.append(_OPENCODE.sub(replace, "".join(code)))
    return "".join(out)


__all__ = ["FileReader", "SubstitutionError", "expand_vars", "substitute_opencode"]
