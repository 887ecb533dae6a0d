"""Edit lemon's own MCP files: add, remove, enable and disable servers, and list one file.

Every edit runs under the file's sibling ``mcp.json.lock`` directory, re-reads and validates the
file there, and writes the result atomically (private 0600 temporary file, fsync, rename). A
file that is invalid, locked by another writer or changed while lemon edits it is left exactly
as it was: the call raises and nothing is written. Unknown top-level fields, unknown entry
fields and unrelated entries are preserved. lemon never edits another tool's file.

``scope`` is ``"project"`` (``<cwd>/.lemon/mcp.json``) or ``"global"`` (``<agent dir>/mcp.json``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from lemon_core.context import LemonContext
from lemon_core.errors import LemonError, NotFoundError
from lemon_core.fsio import Snapshot, beneath, dump_json, update_file
from lemon_core.fsio.write import check_parent
from lemon_core.mcp.config import (
    DEFAULT_LOCK_TIMEOUT,
    LemonScope,
    McpFile,
    lock_timeout,
    mcp_path,
    parse_file,
    read_bytes,
    read_file,
)
from lemon_core.mcp.names import check_name, show
from lemon_core.mcp.schema import entry_label
from lemon_core.mcp.spec import ServerSpec, build_entry


class ServerExistsError(LemonError):
    """``add`` found an entry with that name and was not told to replace it."""


@attrs.frozen
class WriteResult:
    """What an edit did: ``action`` is added, replaced, removed, enabled or disabled."""

    action: str
    name: str
    scope: LemonScope
    path: Path
    changed: bool
    transport: str | None = None
    #: What the user should know although the edit was made (e.g. its trust record could not
    #: be written).
    notes: tuple[str, ...] = ()


def _edit(
    ctx: LemonContext,
    scope: LemonScope,
    change: Callable[[McpFile], bool],
    timeout: float | None,
) -> Path:
    """Apply ``change`` (mutates ``McpFile.data``, returns whether it changed) under the lock."""
    path = mcp_path(ctx, scope)
    root = ctx.cwd if scope == "project" else None  # a project's file: never through a link
    check_parent(path)  # ".lemon is a file", before reading reports "a folder on its path…"
    if root is not None:
        beneath.check(root, path)
    change(parse_file(read_bytes(path), path, scope))  # fail early, before locking, on a bad file

    def transform(snapshot: Snapshot) -> bytes:
        current = parse_file(snapshot.content, path, scope)
        if not change(current):
            return snapshot.content if snapshot.content is not None else dump_json(current.data)
        data = dump_json(current.data)
        parse_file(data, path, scope)  # never write a file lemon itself could not read
        return data

    try:
        update_file(path, transform, timeout=lock_timeout(ctx, timeout), root=root)
    except OSError as exc:
        raise LemonError(f"cannot write {path}: {exc.strerror or type(exc).__name__}") from None
    return path


def add_server(
    ctx: LemonContext,
    spec: ServerSpec,
    *,
    scope: LemonScope = "project",
    replace: bool = False,
    timeout: float | None = None,
    trust: bool = True,
) -> WriteResult:
    """Add ``spec`` to the scope's file; an existing name is refused unless ``replace``.

    In the project file the entry written is also recorded as trusted
    (:mod:`lemon_core.mcp.trust`): the user just wrote it. ``trust=False`` leaves it untrusted.
    """
    spec.validate()
    replaced = False

    def change(mf: McpFile) -> bool:
        nonlocal replaced
        index = mf.index_of(spec.name)
        if index is not None and not replace:
            raise ServerExistsError(
                f"a server named {show(spec.name)} already exists in {mf.path}; pass --replace "
                f"to replace it"
            )
        servers: list[Any] = mf.data.setdefault("servers", [])
        if index is None:
            servers.append(build_entry(spec, None))
        else:
            label = entry_label("servers", index, servers[index])
            servers[index] = build_entry(spec, servers[index], label)
        replaced = index is not None
        return True

    path = _edit(ctx, scope, change, timeout)
    notes: tuple[str, ...] = ()
    if trust and scope == "project":
        notes = _trust_written(ctx, path, scope, spec.name)
    action = "replaced" if replaced else "added"
    return WriteResult(action, spec.name, scope, path, True, spec.transport, notes)


def add_entries(
    ctx: LemonContext,
    entries: list[dict[str, Any]],
    *,
    scope: LemonScope = "project",
    timeout: float | None = None,
) -> tuple[WriteResult, ...]:
    """Write every entry of ``entries`` (each one in the schema of this file, named) into
    the scope's file in one atomic edit, an entry of the same name replaced: all are written
    or, when one is invalid or the file cannot be written, none (a blueprint's servers).
    In the project file each is recorded as trusted, as :func:`add_server` does."""
    from lemon_core.mcp.schema import parse_entry
    from lemon_core.models import ServerSource

    checked = [parse_entry(e, label=f"servers[{i}]", source=ServerSource("lemon", scope, None))
               for i, e in enumerate(entries)]
    for server in checked:
        check_name(server.name or "")
    replaced: dict[str, bool] = {}

    def change(mf: McpFile) -> bool:
        servers: list[Any] = mf.data.setdefault("servers", [])
        for entry in entries:
            index = mf.index_of(entry["name"])
            replaced[entry["name"]] = index is not None
            if index is None:
                servers.append(dict(entry))
            else:
                servers[index] = dict(entry)
        return bool(entries)

    path = _edit(ctx, scope, change, timeout)
    results = []
    for server in checked:
        name = server.name or ""
        notes = _trust_written(ctx, path, scope, name) if scope == "project" else ()
        results.append(WriteResult("replaced" if replaced.get(name) else "added", name, scope,
                                   path, True, server.transport, notes))
    return tuple(results)


def _trust_written(ctx: LemonContext, path: Path, scope: LemonScope, name: str
                   ) -> tuple[str, ...]:
    """Record the entry just written as trusted. The file is changed already, so a trust
    store that is busy or unusable does not fail the command: it is a note saying how to trust
    the server later (until then it is not started)."""
    from lemon_core.mcp.trust.store import trust_servers

    written = parse_file(read_bytes(path), path, scope)
    index = written.index_of(name)
    if index is None:
        return ()
    try:
        trust_servers(ctx, [written.servers[index]])
    except LemonError as exc:
        return (f"{show(name)} was written but not recorded as trusted ({exc}); it is not "
                f"started until you run 'lemon mcp trust {name}'",)
    return ()


def remove_server(
    ctx: LemonContext, name: str, *, scope: LemonScope = "project", timeout: float | None = None
) -> WriteResult:
    """Remove the entry named exactly ``name`` from the scope's file (no other scope)."""
    check_name(name)
    transport: str | None = None

    def change(mf: McpFile) -> bool:
        nonlocal transport
        index = mf.index_of(name)
        if index is None:
            raise NotFoundError(f"no server named {show(name)} in {mf.path}")
        transport = mf.servers[index].transport
        del mf.data["servers"][index]
        return True

    path = _edit(ctx, scope, change, timeout)
    return WriteResult("removed", name, scope, path, True, transport)


def _set_state(
    ctx: LemonContext, name: str, enable: bool, scope: LemonScope, timeout: float | None
) -> WriteResult:
    check_name(name)
    changed = False
    add_to, drop_from = ("enabled_servers", "disabled_servers")[:: 1 if enable else -1]

    def change(mf: McpFile) -> bool:
        nonlocal changed
        data = mf.data
        keep = [n for n in data.get(drop_from, []) if n != name]
        changed = False
        if len(keep) != len(data.get(drop_from, [])):
            data[drop_from] = keep
            changed = True
        if name not in data.get(add_to, []):
            data[add_to] = [*data.get(add_to, []), name]
            changed = True
        return changed

    path = _edit(ctx, scope, change, timeout)
    return WriteResult("enabled" if enable else "disabled", name, scope, path, changed)


def enable_server(
    ctx: LemonContext, name: str, *, scope: LemonScope = "project", timeout: float | None = None
) -> WriteResult:
    """Put ``name`` on the file's ``enabled_servers`` allowlist (and off its denylist).

    Applies to the server of that name from any source, imported ones included, and overrides
    an entry's own ``"enabled": false``. The name need not be configured yet.
    """
    return _set_state(ctx, name, True, scope, timeout)


def disable_server(
    ctx: LemonContext, name: str, *, scope: LemonScope = "project", timeout: float | None = None
) -> WriteResult:
    """Put ``name`` on the file's ``disabled_servers`` denylist (and off its allowlist)."""
    return _set_state(ctx, name, False, scope, timeout)


def list_servers(ctx: LemonContext, scope: LemonScope = "project") -> McpFile:
    """The scope's file, validated (a missing file gives an empty :class:`McpFile`)."""
    return read_file(ctx, scope)


__all__ = [
    "DEFAULT_LOCK_TIMEOUT",
    "ServerExistsError",
    "WriteResult",
    "add_entries",
    "add_server",
    "disable_server",
    "enable_server",
    "list_servers",
    "lock_timeout",
    "remove_server",
]
