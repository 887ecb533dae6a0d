"""Importer of OpenCode MCP servers, key ``mcp``, JSON with comments.

Files: project ``opencode.json``, ``opencode.jsonc``, ``.opencode/opencode.json``,
``.opencode/opencode.jsonc``; user (opt-in) ``~/.config/opencode/opencode.json[c]``. Unlike
OpenCode, which deep-merges these layers, each file's entries are separate and the first one
for a name wins.

- Before parsing, ``{env:VAR}`` becomes the variable's value ("" when unset) and
  ``{file:path}`` the trimmed contents of that file (relative to the config file, ``~/`` = home);
  values are JSON-escaped and tokens inside comments are left alone. A ``{file:}`` that cannot be
  read fails the whole file (OpenCode refuses such a config too). No ``${VAR}`` expansion.
  A server name (or ``type``) that holds substituted text is never shown: the entry is skipped
  as ``substituted_name`` (``substituted_field``), reported by its position in the file.
- ``type`` ``local`` is stdio and ``remote`` Streamable HTTP (missing: inferred). ``command`` is
  an argv array (program, then arguments; a plain string is accepted as the program, and an
  ``args`` list is appended); the environment key is ``environment`` (``env`` is accepted).
- ``timeout`` is milliseconds. ``oauth`` is not imported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lemon_core.fsio import read as reading
from lemon_core.hookspecs import hookimpl
from lemon_core.mcp.importer_kit import jsonc
from lemon_core.mcp.importer_kit.expand import SubstitutionError, mark_opencode
from lemon_core.mcp.importer_kit.files import STATE_KEYS, FileImporter, server_map
from lemon_core.records import ImportRequest

TYPES = {"local": "stdio", "remote": "http"}


def file_reader(config: Path, request: ImportRequest) -> Any:
    """The ``{file:…}`` reader for one config file (bounded, regular files only)."""

    def read(arg: str) -> str:
        shown = repr(arg[:200])
        if arg.startswith(("~/", "~\\")):
            target = request.home / arg[2:]
        else:
            target = config.parent / arg  # an absolute arg replaces the base
        try:
            text = reading.read_text(target, request.max_bytes)
        except reading.FileProblem as problem:
            raise SubstitutionError(f"{{file:}} {shown}: {problem.message}") from None
        if text is None:
            raise SubstitutionError(f"{{file:}} {shown}: no such file")
        return text

    return read


def argv(command: Any, args: Any) -> tuple[Any, Any]:
    """OpenCode's argv array as ``(program, arguments)``, an ``args`` list appended.

    A plain string command passes through; a malformed array (empty, or not all strings) is
    passed on unchanged, for the shared checks to report after the command/URL checks.
    """
    if not (isinstance(command, list) and command and all(isinstance(a, str) for a in command)):
        return command, args
    if args is None:
        return command[0], command[1:]
    return command[0], [*command[1:], *args] if isinstance(args, list) else args


class OpenCodeImporter(FileImporter):
    name = "opencode"
    order = 50
    project_files = (
        ("opencode.json",),
        ("opencode.jsonc",),
        (".opencode/opencode.json",),
        (".opencode/opencode.jsonc",),
    )
    user_files = ((".config/opencode/opencode.json",), (".config/opencode/opencode.jsonc",))
    expands_vars = False

    def parse(self, text: str, path: Path, request: ImportRequest) -> Any:
        try:
            marked = mark_opencode(text, request.ctx.env, file_reader(path, request))
        except SubstitutionError as exc:
            raise reading.FileProblem("read", str(exc)) from None
        return marked.resolve(jsonc.loads(marked.text))

    def entries(self, doc: Any, path: Path, request: ImportRequest) -> Iterable[tuple[str, Any]]:
        return server_map(doc, "mcp")

    def translate(
        self, name: str, raw: Mapping[str, Any], path: Path, request: ImportRequest
    ) -> dict[str, Any]:
        kind = raw.get("type")
        command, args = argv(raw.get("command"), raw.get("args"))
        env = raw.get("environment")
        return {
            "type": TYPES.get(kind, kind) if isinstance(kind, str) else kind,
            "command": command,
            "args": args,
            "env": env if env is not None else raw.get("env"),
            "url": raw.get("url"),
            "headers": raw.get("headers"),
            "timeout_ms": raw.get("timeout"),
            **{key: raw.get(key) for key in STATE_KEYS},
        }


@hookimpl
def lemon_register_mcp_importers(register: Any) -> None:
    register(OpenCodeImporter())
