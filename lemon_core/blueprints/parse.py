"""Read a bundle: its id checked, every file it ships listed (no links, bounded), and its
``blueprint.toml`` parsed into a :class:`~lemon_core.blueprints.model.Blueprint`, every
problem reported at once (:class:`~lemon_core.blueprints.model.BlueprintError`).

A bundle is hostile input: its files are read through the safe reader beneath the bundle
folder (a link anywhere in it is refused, never followed), the manifest is capped at
:data:`MAX_MANIFEST` bytes and the bundle at :data:`MAX_FILES` files and :data:`MAX_BYTES`.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Any

import tomllib

from lemon_core.blueprints.model import (
    SCOPES,
    Blueprint,
    BlueprintError,
    BundleFile,
    Profile,
    SkillEntry,
)
from lemon_core.errors import ConfigError, UsageError
from lemon_core.fsio.read import FileProblem, decode_utf8, read_bytes
from lemon_core.text import escape

MANIFEST = "blueprint.toml"
MAX_MANIFEST = 256 * 1024
MAX_FILES = 2000
MAX_BYTES = 64 * 1024 * 1024
#: A bundle id, a profile's name, a skill entry's name: ASCII, 1-64 characters.
SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
NAME_RULE = "1-64 lowercase ASCII letters, digits, dots, underscores or hyphens, starting " \
            "with a letter or digit"


def check_id(bundle_id: str) -> str:
    """``bundle_id`` when it is a safe name; else a UsageError (exit 2)."""
    if not isinstance(bundle_id, str) or SAFE_NAME.fullmatch(bundle_id) is None \
            or ".." in bundle_id:
        raise UsageError(f"{escape(bundle_id)!s} is not a blueprint id: use {NAME_RULE}")
    return bundle_id


def bundles_dir(agent_dir: Path) -> Path:
    return agent_dir / "bundles"


def list_files(root: Path) -> tuple[BundleFile, ...]:
    """Every regular file under ``root`` (sorted by path), hashed; a link, a special file, an
    unsafe name or a bundle over the caps is a :class:`BlueprintError`."""
    where = escape(str(root))
    try:
        info = os.lstat(root)
    except OSError as exc:
        raise UsageError(f"no blueprint folder at {where} ({exc.strerror})") from None
    if not stat.S_ISDIR(info.st_mode):
        raise BlueprintError(where, ["is not a folder (a link is never followed)"])
    found: list[BundleFile] = []
    problems: list[str] = []
    total = 0
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted([*dirs, *names]):
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                problems.append(f"{escape(relative)} is a symbolic link (a bundle ships files, "
                                f"never links)")
            elif stat.S_ISDIR(mode):
                continue
            elif not stat.S_ISREG(mode):
                problems.append(f"{escape(relative)} is not a regular file")
            elif not relative.isprintable() or "\\" in relative:
                problems.append(f"{escape(relative)} has a control or backslash character in "
                                f"its name")
            else:
                if len(found) >= MAX_FILES:
                    raise BlueprintError(where, [f"ships over {MAX_FILES} files"])
                try:
                    data = read_bytes(relative, MAX_BYTES, missing_ok=False, beneath=root)
                except FileProblem as exc:
                    problems.append(f"{escape(relative)}: {exc}")
                    continue
                assert data is not None
                total += len(data)
                if total > MAX_BYTES:
                    raise BlueprintError(where, [f"ships over {MAX_BYTES} bytes"])
                found.append(BundleFile(relative, len(data), hashlib.sha256(data).hexdigest()))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
    if problems:
        raise BlueprintError(where, problems)
    return tuple(sorted(found, key=lambda f: f.path.encode("utf-8", "surrogateescape")))


def load(root: Path, bundle_id: str) -> Blueprint:
    """The bundle in ``root`` (its files listed and hashed, its manifest parsed)."""
    files = list_files(root)
    where = escape(str(root / MANIFEST))
    try:
        data = read_bytes(MANIFEST, MAX_MANIFEST, missing_ok=False, beneath=root)
        assert data is not None
        text = decode_utf8(data)
    except FileProblem as exc:
        raise BlueprintError(where, [str(exc)]) from None
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BlueprintError(where, [f"not valid TOML ({escape(str(exc))})"]) from None
    return _blueprint(table, root, bundle_id, files, where)


def _blueprint(table: dict[str, Any], root: Path, bundle_id: str,
               files: tuple[BundleFile, ...], where: str) -> Blueprint:
    problems: list[str] = []
    known = {"version", "name", "description", "skills", "mcp", "profiles"}
    problems += [f"unknown key {escape(k)!s}" for k in sorted(set(table) - known)]
    if table.get("version") != 1:
        problems.append("version must be 1")
    name = _text(table, "name", problems, required=True)
    description = _text(table, "description", problems)
    skills = _skills(table.get("skills", []), problems)
    servers = _servers(table.get("mcp", {}), problems)
    profiles = _profiles(table.get("profiles", {}), skills, servers, problems)
    if problems:
        raise BlueprintError(where, problems)
    return Blueprint(bundle_id, root, name, description, tuple(skills), tuple(servers),
                     profiles, files)


def _text(table: dict[str, Any], key: str, problems: list[str], *,
          required: bool = False, limit: int = 1024) -> str:
    value = table.get(key)
    if value is None:
        if required:
            problems.append(f"{key} is required")
        return ""
    if not isinstance(value, str) or len(value) > limit:
        problems.append(f"{key} must be a string of at most {limit} characters")
        return ""
    if not value.isprintable():
        problems.append(f"{key} {escape(value)} holds control or invisible characters")
        return ""
    return value


def _skills(raw: object, problems: list[str]) -> list[SkillEntry]:
    if not isinstance(raw, list):
        problems.append("skills must be an array of tables ([[skills]])")
        return []
    out: list[SkillEntry] = []
    for index, item in enumerate(raw):
        label = f"skills[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{label} must be a table")
            continue
        extra = sorted(set(item) - {"source", "skills", "name"})
        problems += [f"{label}: unknown key {escape(k)}" for k in extra]
        source = _text(item, "source", problems, required=True, limit=2048)
        name = _text(item, "name", problems)
        if name and SAFE_NAME.fullmatch(name) is None:
            problems.append(f"{label}: name {escape(name)} must be {NAME_RULE}")
        chosen = item.get("skills", [])
        if not isinstance(chosen, list) or not all(
                isinstance(s, str) and s.isprintable() and 0 < len(s) <= 256 for s in chosen):
            problems.append(f"{label}: skills must be a list of skill names")
            chosen = []
        out.append(SkillEntry(source, tuple(chosen), name))
    labels = [s.label for s in out]
    problems += [f"two skills entries are both {escape(x)}; give one a name"
                 for x in sorted({x for x in labels if labels.count(x) > 1})]
    return out


def _servers(raw: object, problems: list[str]) -> list[dict[str, Any]]:
    from lemon_core.mcp.schema import entry_of, parse_entry
    from lemon_core.models import ServerSource

    if not isinstance(raw, dict) or set(raw) - {"servers"}:
        problems.append("mcp holds only servers ([[mcp.servers]])")
        return []
    entries = raw.get("servers", [])
    if not isinstance(entries, list):
        problems.append("mcp.servers must be an array of tables ([[mcp.servers]])")
        return []
    out: list[dict[str, Any]] = []
    for index, item in enumerate(entries):
        label = f"mcp.servers[{index}]"
        try:
            server = parse_entry(item, label=label,
                                 source=ServerSource("blueprint", "project", None))
        except ConfigError as exc:  # naming the field
            problems.append(escape(str(exc)))
            continue
        if server.name is None:
            problems.append(f"{label}: name is required")
            continue
        out.append(entry_of(server))
    names = [s["name"] for s in out]
    problems += [f"two servers are named {escape(x)}"
                 for x in sorted({x for x in names if names.count(x) > 1})]
    return out


def _profiles(raw: object, skills: list[SkillEntry], servers: list[dict[str, Any]],
              problems: list[str]) -> dict[str, Profile]:
    if not isinstance(raw, dict):
        problems.append("profiles must be a table of tables ([profiles.NAME])")
        return {}
    labels = {s.label for s in skills}
    names = {s["name"] for s in servers}
    out: dict[str, Profile] = {}
    for name, item in raw.items():
        label = f"profiles.{escape(name)}"
        if SAFE_NAME.fullmatch(name) is None:
            problems.append(f"{label}: a profile's name must be {NAME_RULE}")
            continue
        if not isinstance(item, dict):
            problems.append(f"{label} must be a table")
            continue
        problems += [f"{label}: unknown key {escape(k)}"
                     for k in sorted(set(item) - {"skills", "servers", "scope"})]
        scope = item.get("scope", "project")
        if scope not in SCOPES:
            problems.append(f"{label}: scope must be \"project\" or \"global\"")
        picked = []
        for key, known in (("skills", labels), ("servers", names)):
            value = item.get(key)
            if value is not None and (not isinstance(value, list)
                                      or not all(isinstance(v, str) for v in value)):
                problems.append(f"{label}: {key} must be a list of names")
                value = None
            for unknown in sorted(set(value or ()) - known):
                problems.append(f"{label}: {key} names {escape(unknown)}, which the "
                                f"blueprint does not define")
            picked.append(None if value is None else tuple(value))
        out[name] = Profile(name, picked[0], picked[1], scope if scope in SCOPES else "project")
    return out


__all__ = ["MANIFEST", "MAX_BYTES", "MAX_FILES", "MAX_MANIFEST", "NAME_RULE", "bundles_dir",
           "check_id", "list_files", "load"]
