"""The skills ``lazy-skills-mcp`` serves: its layout, validity, duplicate and skip rules.

- **Layout**: a folder holding ``SKILL.md`` is a skill and is not searched further; any other
  folder is a group, searched 8 levels below the source (lemon's grouped walk,
  :func:`lemon_core.catalog.walk.walk_roots`: hidden folders skipped, linked skills and groups
  followed like copies, with loop protection). A source that is itself a skill serves that
  one skill.
- **Validity** (its own rule, not lemon's manifest rules): a skill is left out, with the
  reason logged, only when its frontmatter is missing or cannot be parsed, or its ``name``
  differs from its folder name. A multi-line or long description is served as it is.
- **Duplicates**: the first skill found under a name is served (sources in the order given,
  then sorted paths within a source); a warning names both folders.
- **Skip folders**: each is read flat; a skill whose folder name or frontmatter ``name``
  appears there is not served. A missing skip folder is a warning.

:func:`scan_sources` builds a :class:`LazyScan`; a later scan given the previous one re-reads
only the ``SKILL.md`` files whose signature changed.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from lemon_core.catalog.roots import GROUPED, SkillRoot
from lemon_core.catalog.walk import SKILL_FILE, file_signature, walk_roots
from lemon_core.fsio.inside import open_inside, resolve_inside
from lemon_core.fsio.read import FileProblem, NotRegular, read_up_to
from lemon_core.manifest.frontmatter import (
    HEAD_BYTES,
    FrontmatterError,
    check_text,
    read_split,
)
from lemon_core.manifest.parse_full import load_toml, load_yaml

#: A file changed this close before a scan is parsed again by the next scan (one timestamp
#: tick could hide a second write).
RACY_WINDOW_NS = 2_000_000_000


@attrs.frozen
class ServedSkill:
    """A skill the server serves. ``directory`` is the folder as found (links not resolved)."""

    name: str
    description: str
    directory: str
    skill_md: str
    signature: tuple[int, int, int]


@attrs.frozen
class Parsed:
    """One ``SKILL.md`` as read at ``signature``: its name and description, or why not."""

    signature: tuple[int, int, int]
    name: str | None
    description: str
    reason: str | None


@attrs.frozen
class LazyScan:
    """What one scan found. ``fatal`` holds the startup errors (a source missing or
    unreadable); ``warnings`` everything logged and the scan went on past."""

    skills: tuple[ServedSkill, ...]
    warnings: tuple[str, ...]
    fatal: tuple[str, ...]
    #: Folders whose change could change the result (for a watcher).
    folders: tuple[str, ...]
    #: (path, signature) of every file and folder the result was built from.
    signatures: tuple[tuple[str, Any], ...]
    parsed: dict[str, Parsed]
    valid_count: int
    skipped_count: int
    taken_at_ns: int

    def by_name(self) -> dict[str, ServedSkill]:
        return {skill.name: skill for skill in self.skills}

    def unchanged(self) -> bool:
        """Stat every recorded path again: True when none differs."""
        return all(_signature(path) == sig for path, sig in self.signatures)


def _signature(path: str) -> tuple[int, int, int] | None:
    return file_signature(path)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    return ""


def parse_skill_file(path: str, signature: tuple[int, int, int]) -> Parsed:
    """Read the frontmatter of one ``SKILL.md`` through the safe reader (only its head), opened
    beneath its skill folder's real path, so a link swapped in after the scan is refused."""
    try:
        fd, info = open_inside(os.path.dirname(path), os.path.basename(path))
    except NotRegular:
        return Parsed(signature, None, "", "SKILL.md is not a regular file")
    except FileProblem as exc:
        return Parsed(signature, None, "", f"cannot read SKILL.md ({exc.message})")
    except (OSError, ValueError) as exc:
        return Parsed(signature, None, "", f"cannot read SKILL.md ({_reason(exc)})")
    try:
        text, (fmt, raw, _, raw_line, _) = read_split(
            lambda n: read_up_to(fd, n), read_up_to(fd, HEAD_BYTES, info.st_size))
        check_text(text)
        if fmt == "none":
            return Parsed(signature, None, "", "SKILL.md has no frontmatter")
        data = load_yaml(raw, first_line=raw_line)[0] if fmt == "yaml" else load_toml(raw)
    except FrontmatterError as exc:
        return Parsed(signature, None, "", f"unparsable frontmatter: {exc.message}")
    except OSError as exc:
        return Parsed(signature, None, "", f"cannot read SKILL.md ({_reason(exc)})")
    finally:
        os.close(fd)
    if not isinstance(data, dict):
        return Parsed(signature, None, "", "the frontmatter is not a mapping of fields")
    name = data.get("name")
    return Parsed(signature, name if isinstance(name, str) else None,
                  _text(data.get("description")), None)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or type(exc).__name__
    return "invalid path"


def check_source(path: str) -> str | None:
    """Why ``path`` cannot be a source (missing, not a folder, unreadable), or None."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"skills source not found: {path}"
    except (OSError, ValueError):
        return f"skills source unreadable: {path}"
    if not stat.S_ISDIR(st.st_mode):
        return f"skills source is not a folder: {path}"
    if not os.access(path, os.R_OK | os.X_OK):
        return f"skills source unreadable: {path}"
    return None


def _found_in(source: str, index: int, warnings: list[str],
              folders: list[str], signatures: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """(folder, SKILL.md path) of every skill in one source, in walk order."""
    own = os.path.join(source, SKILL_FILE)
    if os.path.isfile(own):  # a source that is itself a skill serves that one skill
        folders.append(source)
        signatures.append((source, file_signature(source)))
        return [(source, own)]
    walked = walk_roots([SkillRoot(Path(source), "global", f"source-{index}", GROUPED)])
    for diagnostic in walked.diagnostics:
        if diagnostic.code != "lookalike_keys":
            warnings.append(f"{diagnostic.path}: {diagnostic.message}")
    for path, mtime in walked.watched_dirs:
        folders.append(path)
        signatures.append((path, file_signature(path) if mtime is not None else None))
    return [(found.dir, found.skill_md) for found in walked.found]


def _skip_names(skip_dirs: Sequence[str], warnings: list[str], folders: list[str],
                signatures: list[tuple[str, Any]], parsed: dict[str, Parsed],
                reuse: Any) -> set[str]:
    names: set[str] = set()
    for folder in skip_dirs:
        signatures.append((folder, file_signature(folder)))
        try:
            with os.scandir(folder) as listing:
                children = sorted(e.name for e in listing
                                  if not e.name.startswith(".") and e.is_dir())
        except FileNotFoundError:
            warnings.append(f"skip folder not found: {folder}")
            continue
        except OSError as exc:
            warnings.append(f"skip folder unreadable: {folder} ({_reason(exc)})")
            continue
        folders.append(folder)
        for child in children:
            names.add(child)
            skill_md = os.path.join(folder, child, SKILL_FILE)
            sig = file_signature(skill_md)
            signatures.append((skill_md, sig))
            folders.append(os.path.join(folder, child))
            if sig is None:
                continue
            item = reuse(skill_md, sig)
            parsed[skill_md] = item
            if item.name:
                names.add(item.name)
    return names


def scan_sources(sources: Sequence[str], skip_dirs: Sequence[str] = (), *,
                 previous: LazyScan | None = None) -> LazyScan:
    """Scan every source and apply the rules of the module docstring."""
    taken = time.time_ns()
    warnings: list[str] = []
    fatal: list[str] = []
    folders: list[str] = []
    signatures: list[tuple[str, Any]] = []
    parsed: dict[str, Parsed] = {}
    old = previous.parsed if previous is not None else {}
    limit = (previous.taken_at_ns if previous is not None else 0) - RACY_WINDOW_NS

    def reuse(skill_md: str, sig: tuple[int, int, int]) -> Parsed:
        item = old.get(skill_md)
        if item is not None and item.signature == sig and sig[0] < limit:
            return item
        return parse_skill_file(skill_md, sig)

    candidates: list[tuple[str, str]] = []
    for index, source in enumerate(sources):
        problem = check_source(source)
        if problem is not None:
            fatal.append(problem)
            signatures.append((source, file_signature(source)))
            continue
        candidates.extend(_found_in(source, index, warnings, folders, signatures))
    skipped = _skip_names(skip_dirs, warnings, folders, signatures, parsed, reuse)

    served: dict[str, ServedSkill] = {}
    valid = skipped_count = 0
    for folder, skill_md in candidates:
        sig = file_signature(skill_md)
        signatures.append((skill_md, sig))
        folders.append(folder)
        if sig is None:
            continue
        item = reuse(skill_md, sig)
        parsed[skill_md] = item
        folder_name = os.path.basename(folder)
        if item.reason is None and item.name != folder_name:
            shown = "no name" if item.name is None else f"the name '{item.name}'"
            item = attrs.evolve(item, reason=f"its frontmatter has {shown}, not its folder "
                                             f"name '{folder_name}'")
        if item.reason is not None:
            warnings.append(f"skill left out: {skill_md}: {item.reason}")
            continue
        valid += 1
        name = item.name or folder_name
        if name in skipped:
            skipped_count += 1
            continue
        first = served.get(name)
        if first is not None:
            warnings.append(f"duplicate skill name '{name}': serving {first.directory}, "
                            f"ignoring {folder}")
            continue
        served[name] = ServedSkill(name, item.description, folder, skill_md, sig)
        real_md = _real_skill_file(folder, skill_md)
        if real_md is not None:
            folders.append(os.path.dirname(real_md))
    return LazyScan(tuple(served.values()), tuple(warnings), tuple(fatal), tuple(folders),
                    tuple(signatures), parsed, valid, skipped_count, taken)


def _real_skill_file(folder: str, skill_md: str) -> str | None:
    """The real path of a ``SKILL.md`` that is a link into a subfolder of its skill."""
    if not os.path.islink(skill_md):
        return None
    try:
        return resolve_inside(folder, SKILL_FILE)
    except FileProblem:
        return None


def startup_problem(scan: LazyScan, sources: Sequence[str]) -> str | None:
    """Why the server must not start (exit 1): a source missing or unreadable, no valid
    skill in any source, or every skill installed in a skip folder."""
    if scan.fatal:
        return "; ".join(scan.fatal)
    if scan.valid_count == 0:
        return "no valid skill found in: " + ", ".join(sources)
    if not scan.skills and scan.skipped_count:
        return ("every skill found is installed in a skip folder (--skip-installed-in), so "
                "there is nothing to serve from: " + ", ".join(sources))
    return None


__all__ = ["LazyScan", "Parsed", "ServedSkill", "check_source", "parse_skill_file",
           "scan_sources", "startup_problem"]
