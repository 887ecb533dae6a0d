"""Find skill folders below the roots, and record what to stat to notice a change.

Two layouts, chosen per root (:attr:`SkillRoot.layout <lemon_core.catalog.roots.SkillRoot>`):

``"flat"`` — the agent roots, every root of :mod:`lemon_core.catalog.roots`
    The spec's layout, as the agents read it: a skill is a direct child folder of the root
    holding ``SKILL.md`` (``<root>/<key>/SKILL.md``). A ``SKILL.md`` further down is not a
    skill, since agents do not load it; the walk still searches the other folders (quietly,
    within :data:`NESTED_SEARCH_DIRS` folders) and reports what it found there in one
    ``nested_skills`` warning per root: how many, a few example paths, and that agents do not
    load them.

``"grouped"`` — checkouts: ``lemon skill lint`` of a folder now; the lazy server's
    ``--skills-dir`` and install from a repository are to use it too
    (:func:`walk_checkout` for one folder, which by default follows no link out of it; or
    ``SkillRoot(path, scope, id, layout=GROUPED)`` in :func:`walk_roots`).
    A folder holding ``SKILL.md`` is a skill (its name is the key, and it is not searched
    further); any other folder is a group, searched up to :data:`MAX_DEPTH` levels below the
    root.

In both, hidden names are skipped, and symlinked skills and groups are followed like copies,
with loop protection. The walk below one root is bounded: at most :data:`MAX_DIRS_PER_ROOT`
folders visited and :data:`MAX_SKILLS_PER_ROOT` skill folders found (nested ones included);
past either it stops with a ``scan_limit`` / ``skill_limit`` warning. It goes breadth first, so
a link to a huge tree (``/``, home) cannot use up a bound before the root's own skills and
shallower groups are found; found skills are then put back in sorted path order. It never enters a
pseudo-filesystem (:data:`PSEUDO_FILESYSTEMS`, told by the folder's device and, for a link or
a mount point, by its real path). A skill's ``SKILL.md`` must resolve inside the skill
folder's own real path (:func:`lemon_core.fsio.inside.resolve_inside`), else it is an error
(``skill_file_outside``) and never read. A folder lemon cannot enter (no search permission
for its owner, or the open denied) is an ``unreadable_directory`` warning, and the walk goes
on; so do a dangling link, a loop and a walk past the depth.

A project root reached through a symbolic link whose real path leaves the project
(``SkillRoot.within``) is not walked: a ``root_outside_project`` warning names the link, so a
cloned repository's ``.lemon/skill -> ~/.claude/skills`` never lists the user's own skills as
the project's.

Across all roots, two different keys that would look alike (they differ only by letter case,
invisible characters or Unicode compatibility forms) get a ``lookalike_keys`` warning.
"""

from __future__ import annotations

import functools
import os
import stat as stat_module
from collections import deque
from pathlib import Path

import attrs

from lemon_core.catalog.keys import key_problem, lookalike_warnings
from lemon_core.catalog.roots import FLAT, GROUPED, SkillRoot
from lemon_core.fsio.inside import resolve_inside
from lemon_core.fsio.read import FileProblem
from lemon_core.models import Diagnostic

SKILL_FILE = "SKILL.md"
#: How many group levels below a root the walk searches.
MAX_DEPTH = 8
#: The most folders one root's walk visits (groups and the root itself).
MAX_DIRS_PER_ROOT = 50_000
#: The most skill folders one root's walk finds (loaded, rejected or nested).
MAX_SKILLS_PER_ROOT = 10_000
#: In a flat root, how many folders below the root's own children are searched for the
#: ``nested_skills`` report; past it the report says "at least". Nothing down there is loaded,
#: so a link to a huge tree (``/``, home) costs at most this many listings.
NESTED_SEARCH_DIRS = 2_000
#: How many example paths the ``nested_skills`` warning names.
NESTED_EXAMPLES = 3
#: Never searched, wherever a link or a mount point leads.
PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
_SEP_SKILL_FILE = os.sep + SKILL_FILE


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


@functools.cache
def _pseudo_devices() -> frozenset[int]:
    """The devices of :data:`PSEUDO_FILESYSTEMS` that are mounts of their own."""
    try:
        root_dev = os.stat("/").st_dev
    except OSError:
        return frozenset()
    devices = set()
    for top in PSEUDO_FILESYSTEMS:
        try:
            dev = os.stat(top).st_dev
        except OSError:
            continue
        if dev != root_dev:
            devices.add(dev)
    return frozenset(devices)


def _pseudo_top(path: str) -> str | None:
    """The pseudo-filesystem ``path`` really is in, if any."""
    try:
        real = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    for top in PSEUDO_FILESYSTEMS:
        if real == top or real.startswith(top + "/"):
            return top
    return None


class _Stop(Exception):
    """A bound of this root's walk was reached."""


def _folders_above(path: str) -> frozenset[tuple[int, int]]:
    """The identities of every folder above ``path``'s real path, up to ``/``: a link to one
    of them (``root -> /``, ``up -> ../..``) leads back to the root itself, so the walk treats
    it as the loop it is rather than search the whole disk below it."""
    found = set()
    folder = os.path.realpath(path)
    while True:
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
        try:
            st = os.stat(folder)
        except OSError:
            continue
        found.add((st.st_dev, st.st_ino))
    return frozenset(found)


@attrs.define
class _Walker:
    root: SkillRoot
    found: list[FoundSkill] = attrs.Factory(list)
    diagnostics: list[Diagnostic] = attrs.Factory(list)
    watched: list[tuple[str, int | None]] = attrs.Factory(list)
    nested: list[str] = attrs.Factory(list)
    #: Folders still to list: (path, stat, depth, ancestors' identities), breadth first.
    pending: deque = attrs.Factory(deque)
    stopped: bool = False
    dirs_seen: int = 0
    skills_seen: int = 0
    euid: int = attrs.Factory(lambda: os.geteuid() if hasattr(os, "geteuid") else -1)
    #: Links are followed only while they stay inside this real path (None: anywhere).
    contained_in: str | None = None

    flat: bool = attrs.field(init=False, default=True)
    pseudo_devices: frozenset[int] = attrs.Factory(lambda: _pseudo_devices())

    def __attrs_post_init__(self) -> None:
        self.flat = self.root.layout != GROUPED

    def warn(self, path: str, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(path, "warning", code, message))

    def error(self, path: str, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(path, "error", code, message))

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
        top = _pseudo_top(path)
        if top is not None or st.st_dev in _pseudo_devices():
            self.watched.append((path, st.st_mtime_ns))
            self._pseudo(path, top or "a pseudo-filesystem")
            return
        self.pending.append((path, st, 0, _folders_above(path)))
        try:
            while self.pending:
                self._visit(*self.pending.popleft())
        except _Stop:
            self.stopped = True
        if not self.flat and any(os.path.dirname(f.dir) != path for f in self.found):
            # breadth first, so the root's own skills come before a huge group's; precedence
            # inside a root is still sorted path order
            self.found.sort(key=lambda f: os.path.relpath(f.dir, path).split(os.sep))
        self._report_nested()

    def _visit(self, path: str, st: os.stat_result, depth: int, ancestors: frozenset) -> None:
        self.dirs_seen += 1
        if self.flat and self.dirs_seen > NESTED_SEARCH_DIRS:
            raise _Stop  # only the nested report is left to gather: it says "at least"
        if self.dirs_seen > MAX_DIRS_PER_ROOT:
            self.warn(str(self.root.path), "scan_limit",
                      f"the walk below this root stopped at {MAX_DIRS_PER_ROOT} folders; the "
                      "rest was not searched (does a link lead to a large folder such as / or "
                      "your home?)")
            raise _Stop
        self.watched.append((path, st.st_mtime_ns))
        if not self._can_enter(st):
            if self._loud(depth - 1):
                self.warn(path, "unreadable_directory", _NO_SEARCH)
            return
        ancestors = ancestors | {(st.st_dev, st.st_ino)}
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            if self._loud(depth - 1):
                self.warn(path, "unreadable_directory",
                          f"cannot list this folder: {exc.strerror}")
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            self._consider(entry, st.st_dev, depth, ancestors)

    def _loud(self, depth: int) -> bool:
        """Whether a problem with an entry of a folder ``depth`` levels below the root is
        reported: always for checkouts; in a flat root only for the root's own entries (a
        would-be skill), since nothing further down is loaded."""
        return not self.flat or depth <= 0

    def _can_enter(self, st: os.stat_result) -> bool:
        """False when the folder lacks search permission for its owner and we are the owner
        or root (root would enter it anyway, its owner's agents would not)."""
        if self.euid == 0 or st.st_uid == self.euid:
            return bool(st.st_mode & stat_module.S_IXUSR)
        return True  # another user's folder: opening it tells

    def _consider(self, entry: os.DirEntry, parent_dev: int, depth: int,
                  ancestors: frozenset) -> None:
        loud = not self.flat or depth <= 0
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            if entry.is_symlink() and not os.path.exists(entry.path):
                if loud:
                    self.warn(entry.path, "broken_symlink",
                              "a symbolic link whose target is missing")
            elif entry.name.lower() == "skill.md" and self._loud(depth - 1):
                self._stray_skill_file(entry, depth)  # a would-be skill, not loaded: say why
            return
        linked = entry.is_symlink()
        if linked and not self._may_follow(entry.path, loud):
            return
        skill_md = entry.path + _SEP_SKILL_FILE
        try:
            link_stat = os.lstat(skill_md)
        except PermissionError:
            if loud:
                self.warn(entry.path, "unreadable_directory",
                          "cannot open this folder (permission denied), so it is not searched")
            return
        except OSError:
            link_stat = None
        if link_stat is not None:
            # Anyone but root was refused the lstat above if the folder is not searchable;
            # root is not, so its mode decides (one more stat, as root only).
            if self.euid == 0 and not self._can_enter(entry.stat()):
                if loud:
                    self.warn(entry.path, "unreadable_directory", _NO_SEARCH)
                return
            self._count_skill()
            if self.flat and depth > 0:
                self.nested.append(skill_md)
            else:
                self._add_skill(entry, skill_md, link_stat)
            return
        try:
            child_stat = entry.stat()
        except OSError:
            return
        dev = child_stat.st_dev
        if dev in self.pseudo_devices or (dev != parent_dev and _pseudo_top(entry.path)):
            if loud:  # a mount point reached on the way (/proc below a link to /)
                self._pseudo(entry.path, _pseudo_top(entry.path) or "a pseudo-filesystem")
            return
        if not self._can_enter(child_stat):
            if loud:
                self.warn(entry.path, "unreadable_directory", _NO_SEARCH)
            return
        if (dev, child_stat.st_ino) in ancestors:
            if loud:
                self.warn(entry.path, "symlink_loop",
                          "a link back to a folder above it; not followed")
            return
        if depth + 1 > MAX_DEPTH:
            if loud:
                self.warn(entry.path, "depth_limit",
                          f"groups are searched {MAX_DEPTH} levels deep; this folder was not")
            return
        self.pending.append((entry.path, child_stat, depth + 1, ancestors))

    def _may_follow(self, path: str, loud: bool) -> bool:
        """Whether a link to a folder may be followed: not out of a checkout, not into a
        pseudo-filesystem (both judged by its real path)."""
        if self.contained_in is not None and not self._inside(path):
            self.warn(path, "link_outside_checkout",
                      "a link that leads out of the folder being read; not followed")
            return False
        top = _pseudo_top(path)
        if top is not None:
            if loud:
                self._pseudo(path, top)
            return False
        return True

    def _inside(self, path: str) -> bool:
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        top = self.contained_in or ""
        return real == top or real.startswith(top.rstrip(os.sep) + os.sep)

    def _count_skill(self) -> None:
        self.skills_seen += 1
        if self.skills_seen > MAX_SKILLS_PER_ROOT:
            self.warn(str(self.root.path), "skill_limit",
                      f"the walk below this root stopped at {MAX_SKILLS_PER_ROOT} skill "
                      "folders; the rest was not searched")
            raise _Stop

    def _pseudo(self, path: str, top: str) -> None:
        self.warn(path, "pseudo_filesystem",
                  f"leads into {top}, a system pseudo-filesystem; lemon never searches it")

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
        if stat_module.S_ISLNK(st.st_mode):
            try:
                st = os.stat(skill_md)
            except OSError:
                self.warn(skill_md, "broken_symlink", "SKILL.md is a link whose target is missing")
                return
            try:
                resolve_inside(entry.path, SKILL_FILE)
            except FileProblem as exc:
                self.error(skill_md, "skill_file_outside",
                           f"SKILL.md {exc.message}; it was not read")
                return
        if not stat_module.S_ISREG(st.st_mode):
            self.error(skill_md, "not_a_file", "SKILL.md must be a regular file")
            return
        reason = key_problem(entry.name)
        if reason:
            self.error(entry.path, "invalid_key",
                       f"the folder name cannot be a skill key: it {reason}; rename it")
            return
        self.found.append(
            FoundSkill(entry.name, self.root, entry.path, skill_md,
                       (st.st_mtime_ns, st.st_size, st.st_ino))
        )

    def _report_nested(self) -> None:
        if not self.nested:
            return
        root = str(self.root.path)
        count = len(self.nested)
        shown = sorted(os.path.relpath(path, root).split(os.sep) for path in self.nested)
        examples = ", ".join(os.path.join(*parts) for parts in shown[:NESTED_EXAMPLES])
        more = ", …" if count > NESTED_EXAMPLES else ""
        files = "1 SKILL.md is" if count == 1 else f"{count} SKILL.md files are"
        files = f"at least {files}" if self.stopped else files
        self.warn(root, "nested_skills",
                  f"{files} below a sub-folder of this root, not in <root>/<key>/SKILL.md "
                  f"({examples}{more}); agents do not load skills from sub-folders, so lemon "
                  "does not list them: move each skill folder directly into the root")


_NO_SEARCH = ("this folder has no search (execute) permission, so nothing in it can be "
              "opened; make it searchable (chmod u+x) or remove it")


def walk_roots(roots: list[SkillRoot], *, contained: bool = False) -> WalkResult:
    """Walk every root in order; found skills keep root order, then sorted walk order."""
    found: list[FoundSkill] = []
    diagnostics: list[Diagnostic] = []
    watched: list[tuple[str, int | None]] = []
    for root in roots:
        if root.within is not None and not _project_root_ok(root, diagnostics, watched):
            continue
        walker = _Walker(root)
        if contained:
            walker.contained_in = os.path.realpath(root.path)
        walker.run()
        found.extend(walker.found)
        diagnostics.extend(walker.diagnostics)
        watched.extend(walker.watched)
    diagnostics.extend(lookalike_warnings(found))
    return WalkResult(tuple(found), tuple(diagnostics), tuple(watched))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _link_out_of(root: SkillRoot) -> tuple[str, str] | None:
    """The first link on the way from ``root.within`` to ``root.path`` whose real path leaves
    ``root.within``, and that real path; None when there is none."""
    assert root.within is not None
    try:
        parts = root.path.relative_to(root.within).parts
        top = os.path.realpath(root.within)
    except (ValueError, OSError):
        return None
    current = root.within
    for part in parts:
        current = current / part
        if os.path.islink(current):
            real = os.path.realpath(current)
            if not _inside(real, top):
                return str(current), real
    return None


def _project_root_ok(root: SkillRoot, diagnostics: list[Diagnostic],
                     watched: list[tuple[str, int | None]]) -> bool:
    """Whether a project root may be walked; reports one reached through a link out of the
    project."""
    escape = _link_out_of(root)
    if escape is not None:
        link, real = escape
        # the root itself (every root is watched: the persistent cache checks that), and the
        # link's folder, whose time changes when the link is removed or replaced
        for folder in (str(root.path), os.path.dirname(link)):
            try:
                watched.append((folder, os.stat(folder).st_mtime_ns))
            except OSError:
                watched.append((folder, None))
        diagnostics.append(Diagnostic(
            link, "warning", "root_outside_project",
            f"this project skills root is a symbolic link leading out of the project (to "
            f"{real}); its skills are not listed as the project's. Remove the link, or link "
            f"single skill folders into the root instead"))
        return False
    return True


def walk_checkout(
    path: Path, *, scope: str = "project", root_id: str = "checkout", contained: bool = True
) -> WalkResult:
    """The skills of one checkout folder, in the grouped layout (see the module docstring).

    ``contained`` (the default: a repository, a folder given to lint) follows a link only when
    its real path stays inside the folder's real path; one leading out is reported
    (``link_outside_checkout``) and not followed, so ``ln -s / skills/root`` in a repository
    makes nobody walk the machine. Pass ``contained=False`` for a folder of the user's own
    where linking skills in from elsewhere is expected.
    """
    root = SkillRoot(Path(path), scope, root_id, GROUPED)  # type: ignore[arg-type]
    return walk_roots([root], contained=contained)


__all__ = [
    "FLAT",
    "GROUPED",
    "MAX_DEPTH",
    "MAX_DIRS_PER_ROOT",
    "MAX_SKILLS_PER_ROOT",
    "NESTED_SEARCH_DIRS",
    "PSEUDO_FILESYSTEMS",
    "SKILL_FILE",
    "FoundSkill",
    "WalkResult",
    "dir_signature",
    "file_signature",
    "walk_checkout",
    "walk_roots",
]
