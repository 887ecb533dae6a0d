"""Which skills of a fetched tree to install.

A tree holding ``SKILL.md`` at its root is one skill. Otherwise every folder holding a
``SKILL.md`` is a candidate (found without following links, a skill's own subfolders not
searched; hidden group folders such as openai/skills' ``skills/.curated`` are searched, the
version-control folders and ``node_modules`` of :data:`SKIPPED` are not); one candidate installs that one, several are
never installed as one skill: the caller names them (``skills``), takes them all
(``all_skills``), or picks through the ``select`` callback; otherwise
:class:`ChoiceNeeded` lists them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from lemon_core.errors import LemonError, UsageError

SKILL_FILE = "SKILL.md"
#: Folders looked into while searching a fetched tree for skills.
MAX_FOLDERS = 2_000
MAX_DEPTH = 8

#: Folders never searched for skills: version control metadata and installed packages.
SKIPPED = frozenset({".git", ".hg", ".svn", ".bzr", "node_modules"})

#: ``select(candidates) -> chosen``: candidates are relative folders ("" is the root).
Selector = Callable[[Sequence[str]], Sequence[str]]


class ChoiceNeeded(LemonError):
    """The fetched tree holds several skills and none was chosen; ``choices`` lists them."""

    exit_code = 2

    def __init__(self, message: str, choices: Sequence[str]) -> None:
        super().__init__(message)
        self.choices = tuple(choices)


def _holds_skill(folder: Path) -> bool:
    """A SKILL.md entry that is not a folder (a link or a FIFO counts: the safe-tree check
    then refuses it by name, rather than the skill going unseen)."""
    path = folder / SKILL_FILE
    return os.path.lexists(path) and not (path.is_dir() and not path.is_symlink())


def find_skills(tree: Path) -> list[str]:
    """The relative folders of ``tree`` that hold a SKILL.md ("" for the root), sorted."""
    if _holds_skill(tree):
        return [""]
    found: list[str] = []
    queue: list[tuple[str, int]] = [("", 0)]
    seen = 0
    while queue and seen < MAX_FOLDERS:
        relative, depth = queue.pop(0)
        seen += 1
        try:
            with os.scandir(tree / relative if relative else tree) as listing:
                children = sorted((e for e in listing if e.name not in SKIPPED
                                   and e.is_dir(follow_symlinks=False)), key=lambda e: e.name)
        except OSError:
            continue
        for child in children:
            rel = f"{relative}/{child.name}" if relative else child.name
            if _holds_skill(Path(child.path)):
                found.append(rel)
            elif depth + 1 < MAX_DEPTH:
                queue.append((rel, depth + 1))
    return sorted(found)


def label(candidate: str) -> str:
    """A candidate as a person reads it: its name and the folder it comes from."""
    if not candidate:
        return "(the root)"
    folder, _, name = candidate.rpartition("/")
    return f"{name} (from {folder}/)" if folder else name


def _by_name(candidates: Sequence[str], wanted: str) -> str | None:
    if wanted in candidates:
        return wanted
    matches = [c for c in candidates if c.rsplit("/", 1)[-1] == wanted]
    return matches[0] if len(matches) == 1 else None


def choose(candidates: Sequence[str], *, skills: Sequence[str] = (), all_skills: bool = False,
           select: Selector | None = None) -> list[str]:
    """The candidates to install, in order. :raises ChoiceNeeded: or a UsageError."""
    if not candidates:
        raise LemonError("the fetched tree holds no SKILL.md; check the identifier (a "
                         "subdirectory can be named with #subdirectory=PATH)")
    listed = ", ".join(label(c) for c in candidates)
    if skills:
        chosen = []
        for wanted in skills:
            match = _by_name(candidates, wanted)
            if match is None:
                raise UsageError(f"the fetched tree has no skill {wanted!r}; it holds: {listed}")
            if match not in chosen:
                chosen.append(match)
        return chosen
    if all_skills or len(candidates) == 1:
        return list(candidates)
    if select is not None:
        picked = [c for c in select(list(candidates)) if c in candidates]
        if picked:
            return picked
        raise LemonError("no skill was picked; nothing was installed")
    names = " ".join(f"--skill {c.rsplit('/', 1)[-1]}" for c in candidates[:3])
    raise ChoiceNeeded(f"the fetched tree holds {len(candidates)} skills: {listed}; choose "
                       f"with --skill NAME (e.g. {names}) or take them all with --all",
                       candidates)


__all__ = ["SKILL_FILE", "SKIPPED", "ChoiceNeeded", "Selector", "choose", "find_skills",
           "label"]
