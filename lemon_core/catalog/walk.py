"""Find skill folders below the roots, and record what to stat to notice a change.

The layout rule: a folder holding ``SKILL.md`` is a skill (its name is the key, and it is not
searched further); any other folder is a group, searched up to :data:`MAX_DEPTH` levels below
the root. Hidden names are skipped. Symlinked skills and groups are followed like copies, with
loop protection; a dangling link, an unreadable folder or a walk past the limits is reported as
a warning and the walk goes on.
"""

from __future__ import annotations

import os
import stat as stat_module

import attrs

from lemon_core.catalog.roots import SkillRoot
from lemon_core.models import Diagnostic
from lemon_core.text import unsafe_reason

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 8
MAX_DIRS_PER_ROOT = 50_000
MAX_KEY_BYTES = 255



@attrs.frozen
class FoundSkill:
    """A skill folder found by the walk (paths as strings: see ``SkillEntry``)."""

    key: str
    root: SkillRoot
    dir: str
    skill_md: str
    signature: tuple[int, int, int]


@attrs.frozen
class WalkResult:
    found: tuple[FoundSkill, ...]
    diagnostics: tuple[Diagnostic, ...]
    #: Every folder whose listing decided the result, with its mtime_ns (None: missing).
    watched_dirs: tuple[tuple[str, int | None], ...]


def file_signature(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def dir_signature(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


@attrs.define
class _Walker:
    root: SkillRoot
    found: list[FoundSkill] = attrs.Factory(list)
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    watched: list[tuple[str, int | None]] = attrs.Factory(list)
    dirs_seen: int = 0

    def warn(self, path: str, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(path, "warning", code, message))

    def run(self) -> None:
        path = str(self.root.path)
        try:
            st = os.stat(path)
        except OSError:
            self.watched.append((path, None))
            return
        if not stat_module.S_ISDIR(st.st_mode):
            self.watched.append((path, None))
            self.warn(path, "root_not_a_directory", "a skills root must be a folder; ignored")
            return
        self._visit(path, st, 0, frozenset())

    def _visit(self, path: str, st: os.stat_result, depth: int, ancestors: frozenset) -> None:
        self.dirs_seen += 1
        if self.dirs_seen > MAX_DIRS_PER_ROOT:
            if self.dirs_seen == MAX_DIRS_PER_ROOT + 1:
                self.warn(str(self.root.path), "scan_limit",
                          f"more than {MAX_DIRS_PER_ROOT} folders below this root; the rest "
                          f"was not searched")
            return
        self.watched.append((path, st.st_mtime_ns))
        ancestors = ancestors | {(st.st_dev, st.st_ino)}
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            self.warn(path, "unreadable_directory", f"cannot list this folder: {exc.strerror}")
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            self._consider(entry, depth, ancestors)

    def _consider(self, entry: os.DirEntry, depth: int, ancestors: frozenset) -> None:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            if entry.is_symlink() and not os.path.exists(entry.path):
                self.warn(entry.path, "broken_symlink", "a symbolic link whose target is missing")
            elif entry.name.lower() == "skill.md":  # a would-be skill, not loaded: say why
                self._stray_skill_file(entry, depth)
            return
        skill_md = os.path.join(entry.path, SKILL_FILE)
        try:
            skill_stat = os.stat(skill_md)
        except OSError:
            skill_stat = None
        if skill_stat is not None:
            self._add_skill(entry, skill_md, skill_stat)
            return
        if os.path.lexists(skill_md):
            self.warn(skill_md, "broken_symlink", "SKILL.md is a link whose target is missing")
            return
        try:
            child_stat = os.stat(entry.path)
        except OSError:
            return
        if (child_stat.st_dev, child_stat.st_ino) in ancestors:
            self.warn(entry.path, "symlink_loop", "a link back to a folder above it; not followed")
            return
        if depth + 1 > MAX_DEPTH:
            self.warn(entry.path, "depth_limit",
                      f"groups are searched {MAX_DEPTH} levels deep; this folder was not")
            return
        self._visit(entry.path, child_stat, depth + 1, ancestors)

    def _stray_skill_file(self, entry: os.DirEntry, depth: int) -> None:
        if depth == 0:
            self.warn(entry.path, "misplaced_skill_file",
                      f"a {entry.name} directly in a skills root is not a skill; move it into "
                      "a folder named after the skill (<root>/<key>/SKILL.md)")
        elif entry.name != SKILL_FILE:
            self.warn(entry.path, "misnamed_skill_file",
                      f"named {entry.name}, so this folder is not a skill; agents and lemon "
                      f"read only {SKILL_FILE}: rename it")

    def _add_skill(self, entry: os.DirEntry, skill_md: str, st: os.stat_result) -> None:
        if not stat_module.S_ISREG(st.st_mode):
            self.diagnostics.append(
                Diagnostic(skill_md, "error", "not_a_file", "SKILL.md must be a regular file")
            )
            return
        reason = _key_problem(entry.name)
        if reason:
            self.diagnostics.append(
                Diagnostic(entry.path, "error", "invalid_key",
                           f"the folder name cannot be a skill key: it {reason}; rename it")
            )
            return
        self.found.append(
            FoundSkill(entry.name, self.root, entry.path, skill_md,
                       (st.st_mtime_ns, st.st_size, st.st_ino))
        )


def _key_problem(name: str) -> str | None:
    """Why a folder name cannot be a key (undecodable, control or bidi characters, too long)."""
    unsafe = unsafe_reason(name)
    if unsafe is not None:
        return unsafe[1]
    if len(name.encode("utf-8")) > MAX_KEY_BYTES:
        return f"is longer than {MAX_KEY_BYTES} bytes"
    return None


def walk_roots(roots: list[SkillRoot]) -> WalkResult:
    """Walk every root in order; found skills keep root order, then sorted walk order."""
    found: list[FoundSkill] = []
    diagnostics: list[Diagnostic] = []
    watched: list[tuple[str, int | None]] = []
    for root in roots:
        walker = _Walker(root)
        walker.run()
        found.extend(walker.found)
        diagnostics.extend(walker.diagnostics)
        watched.extend(walker.watched)
    return WalkResult(tuple(found), tuple(diagnostics), tuple(watched))


__all__ = ["FoundSkill", "MAX_DEPTH", "SKILL_FILE", "WalkResult", "dir_signature",
           "file_signature", "walk_roots"]
