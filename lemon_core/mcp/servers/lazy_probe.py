"""Whether ``lazy-skills-mcp`` can start, known before its scan is done.

The server must refuse to start (exit 1) when nothing can be served, so without a current
cached scan ``initialize`` would wait for a whole scan (about 2 s at 10,000 skills).
:func:`surely_servable` answers the question sooner, for the usual case: every source is a
usable folder and one of the first skill folders directly in a source (or a source that is
itself a skill) is one the scan will serve: a real folder (not a link, not hidden) holding a
regular ``SKILL.md`` (not a link) whose frontmatter parses and names the folder, a valid key,
not installed in a skip folder. The scan walks breadth first in sorted order, so such a
folder is among the first it finds. Anything less certain answers False, and the caller waits
for the scan as before; so a True is never wrong about the scan it anticipates (a skill
removed meanwhile is a change like any other, seen at the next call).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from lemon_core.catalog.keys import key_problem
from lemon_core.catalog.walk import PSEUDO_FILESYSTEMS, SKILL_FILE
from lemon_core.mcp.servers.lazy_catalog import (
    _skip_names,
    check_source,
    parse_skill_file,
)

#: Skill folders tried per source before giving up (each costs one frontmatter parse).
MAX_TRIES = 20


def _enterable(info: os.stat_result) -> bool:
    """The walk's own rule: its owner (or root) needs search permission."""
    euid = os.geteuid() if hasattr(os, "geteuid") else -1
    if euid == 0 or info.st_uid == euid:
        return bool(info.st_mode & stat.S_IXUSR)
    return True


def _pseudo(path: str) -> bool:
    real = os.path.realpath(path)
    return any(real == top or real.startswith(top + os.sep) for top in PSEUDO_FILESYSTEMS)


def _serves(folder: str, skill_md: str, skipped: set[str]) -> bool:
    try:
        info = os.lstat(skill_md)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    name = os.path.basename(folder)
    if key_problem(name) or name in skipped:
        return False
    parsed = parse_skill_file(skill_md, (info.st_mtime_ns, info.st_size, info.st_ino))
    return parsed.reason is None and parsed.name == name


def _first_in(source: str, skipped: set[str]) -> bool | None:
    """True when a skill directly in ``source`` will be served; None when unsure."""
    own = os.path.join(source, SKILL_FILE)
    if os.path.isfile(own):
        return _serves(source, own, skipped) or None
    try:
        info = os.stat(source)
        if _pseudo(source) or not _enterable(info):
            return None
        with os.scandir(source) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return None
    tries = 0
    for entry in entries:
        if entry.name.startswith("."):
            continue
        skill_md = entry.path + os.sep + SKILL_FILE
        if not os.path.lexists(skill_md):
            continue
        tries += 1  # a skill folder the walk counts, whether or not this one is served
        if tries > MAX_TRIES:
            return None
        try:
            real_dir = entry.is_dir(follow_symlinks=False)
            if not (real_dir and _enterable(entry.stat(follow_symlinks=False))):
                continue
        except OSError:
            continue
        if _serves(entry.path, skill_md, skipped):
            return True
    return None


def surely_servable(sources: Sequence[str], skip_dirs: Sequence[str]) -> bool:
    """True only when the scan of ``sources`` will certainly find something to serve and
    no source is missing or unreadable (see the module docstring)."""
    if any(check_source(source) is not None for source in sources):
        return False
    skipped = _skip_names(skip_dirs, [], [], [], {}, parse_skill_file)
    return any(_first_in(source, skipped) for source in sources)


__all__ = ["surely_servable"]
