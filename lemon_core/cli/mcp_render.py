"""Human output of ``lemon mcp list``, built from the JSON views of :mod:`lemon_core.mcp.views`.

Names that do not follow the server name rules (possible in ``enabled_servers`` lists and in
other tools' files) are shown quoted and escaped, so a hostile file cannot drive the terminal;
every other path and message from a file goes through :func:`lemon_core.text.escape`. The
texts are :class:`~lemon_core.cli.output.Escaped`: print them with ``say``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lemon_core.cli.output import Escaped, table
from lemon_core.mcp.lenient import ENTRY_KIND
from lemon_core.mcp.names import is_valid_name, show
from lemon_core.mcp.views import REVEALED_FIELDS
from lemon_core.text import escape


def _name(name: object) -> Escaped:
    if name is None:
        return Escaped("(unnamed)")
    return Escaped(escape(name) if is_valid_name(name) else show(str(name)))  # show: ASCII


def _skipped_name(item: Mapping[str, Any]) -> Escaped:
    """A skipped entry: its name (the importer host already escaped it with ``escape``, so it
    is not escaped twice), else its position (a ``substituted_name`` is never shown)."""
    name, index = item["name"], item.get("index")
    if name is None:
        return Escaped(f"entry #{index}" if isinstance(index, int) else "(unnamed)")
    if is_valid_name(name):
        return Escaped(name)
    bare = str(name).replace("\\", "")
    shown = name if escape(bare) == bare else escape(name)  # a third party's raw name
    return Escaped(f'"{shown}"')


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _names(names: Sequence[str]) -> str:
    return ", ".join(_name(n) for n in names)


def _revealed(servers: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = []
    for server in servers:
        lines.append(f"{_name(server['name'])}:")
        for field in REVEALED_FIELDS:
            value = server.get(field)
            if value not in (None, [], {}, ()):
                lines.append(f"  {field}: {json.dumps(value, ensure_ascii=True)}")
    return lines


def file_text(data: Mapping[str, Any], *, reveal: bool = False) -> Escaped:
    """``lemon mcp list [--global]``: one file's entries as a table."""
    label = "Project" if data["scope"] == "project" else "Global"
    lines = [f"{label} MCP file: {escape(data['file'])}"]
    errors = data.get("errors", [])
    if any(e["kind"] != ENTRY_KIND for e in errors):
        lines.append("This file cannot be used (see the error below); every MCP server is "
                     "disabled until it is fixed.")  # fmt: skip
    if not data["exists"]:
        lines.append("No MCP servers (the file does not exist).")
    elif not data["servers"]:
        lines.append("No MCP servers.")
    else:
        rows = [
            [_name(s["name"]), s["transport"], _yes(s["enabled"]), s["approval"],
             str(s["env_count"]), str(s["header_count"]), str(s["tool_approval_count"])]
            for s in data["servers"]
        ]  # fmt: skip
        headers = ["NAME", "TRANSPORT", "ENABLED", "APPROVAL", "ENV", "HEADERS", "TOOL POLICIES"]
        lines.append(table(rows, headers))
    if data["enabled"] is False:
        lines.append('MCP is turned off by this file ("enabled": false).')
    if data["enabled_servers"]:
        lines.append(f"Enabled by name: {_names(data['enabled_servers'])}")
    if data["disabled_servers"]:
        lines.append(f"Disabled by name: {_names(data['disabled_servers'])}")
    for error in errors:
        lines.append(f"error ({escape(error['kind'])}): {escape(error['message'])}")
    if reveal:
        lines.extend(_revealed(data["servers"]))
    return Escaped("\n".join(lines))


def effective_text(data: Mapping[str, Any], *, reveal: bool = False) -> Escaped:
    """``lemon mcp list --all``: the effective set, then what was skipped and what failed."""
    lines = []
    if any(e["provider"] == "lemon" and e["kind"] != ENTRY_KIND for e in data["errors"]):
        lines.append("A lemon MCP file cannot be used (see the error below); every server is "
                     "disabled until it is fixed.")  # fmt: skip
    elif not data["mcp_enabled"]:
        lines.append('MCP is turned off ("enabled": false or LEMON_MCP_DISABLED); every server is '
                     "disabled.")  # fmt: skip
    if data["effective"]:
        rows = [
            [_name(s["name"]), s["transport"], _yes(s["enabled"]), _yes(s.get("trusted", True)),
             f"{s['source']['provider']}:{s['source']['scope']}", str(s["env_count"]),
             str(s["header_count"])]
            for s in data["effective"]
        ]  # fmt: skip
        lines.append(table(rows, ["NAME", "TRANSPORT", "ENABLED", "TRUSTED", "SOURCE", "ENV",
                                  "HEADERS"]))
        if not all(s.get("trusted", True) for s in data["effective"]):
            lines.append("Servers not trusted are not started; review them with "
                         "'lemon mcp trust'.")
    else:
        lines.append(f"No MCP servers in the {data['scope']} scope.")
    for item in data["skipped"]:
        where = f"{item['provider']}:{item['scope']}" + (f" {item['file']}" if item["file"] else "")
        lines.append(f"skipped {_skipped_name(item)} ({escape(where)}): {escape(item['reason'])}")
    lines.extend(error_lines(data["errors"]))
    unread = data.get("unread_user_files") or {}
    if unread.get("count"):
        count = unread["count"]
        providers = ", ".join(dict.fromkeys(escape(f["provider"]) for f in unread["files"]))
        lines.append(f"{count} user-level MCP file{'s' if count > 1 else ''} of other tools "
                     f"not read ({providers}); to include them, {escape(unread['hint'])}")
    if reveal:
        lines.extend(_revealed(data["effective"]))
    return Escaped("\n".join(lines))


def error_lines(errors: Iterable[Mapping[str, Any]]) -> list[str]:
    """One escaped line per source error of the effective set (``views.errors_view``)."""
    lines = []
    for error in errors:
        where = f"{error['provider']}:{error['scope']}"
        if error["file"] and error["file"] not in error["message"]:
            where += f" {error['file']}"
        lines.append(f"error ({escape(where)}, {escape(error['kind'])}): "
                     f"{escape(error['message'])}")
    return lines


__all__ = ["effective_text", "error_lines", "file_text"]
