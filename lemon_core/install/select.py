"""Which skills of a fetched tree to install.

A tree holding ``SKILL.md`` at its root is one skill. Otherwise every folder holding a
``SKILL.md`` is a candidate (found without following links, a skill's own subfolders not
searched; hidden group folders such as openai/skills' ``skills/.curated`` are searched, the
version-control folders and ``node_modules`` of :data:`SKIPPED` are not); one candidate installs that one, several are
never installed as one skill: the caller names them (``skills``), takes them all
(``all_skills``), or picks through the ``select`` callback; otherwise
:class:`ChoiceNeeded` lists them.

A skill is named by its path in the tree, its folder's name or its frontmatter ``name``
(``names``: published folders are often named unlike their skill, vercel-labs/agent-skills'
``react-best-practices`` holds ``vercel-react-best-practices``). A ``SKILL.md`` inside another
skill's folder (:func:`find_nested`: agents reading ``<root>/<name>/SKILL.md`` never see it,
and the ``skills`` CLI's search stops at the first ``SKILL.md`` of a branch) is part of that
skill: ``--all`` installs it with its parent, as the parent's files; named explicitly it is
installed as a skill of its own (as ``skills add --full-depth`` would).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
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


def find_nested(tree: Path, skills: Sequence[str]) -> dict[str, str]:
    """The folders inside the skills ``skills`` (of :func:`find_skills`) that hold a
    SKILL.md of their own, each mapped to the outermost skill holding it; sorted."""
    nested: dict[str, str] = {}
    budget = MAX_FOLDERS
    for parent in skills:
        queue: list[tuple[str, int]] = [(parent, 0)]
        while queue and budget > 0:
            relative, depth = queue.pop(0)
            budget -= 1
            try:
                with os.scandir(tree / relative if relative else tree) as listing:
                    children = sorted((e for e in listing if e.name not in SKIPPED
                                       and e.is_dir(follow_symlinks=False)),
                                      key=lambda e: e.name)
            except OSError:
                continue
            for child in children:
                rel = f"{relative}/{child.name}" if relative else child.name
                if _holds_skill(Path(child.path)):
                    nested[rel] = parent
                if depth + 1 < MAX_DEPTH:
                    queue.append((rel, depth + 1))
    return dict(sorted(nested.items()))


def label(candidate: str, name: str | None = None) -> str:
    """A candidate as a person reads it: its name and the folder it comes from (``name``,
    its frontmatter name, when it differs from the folder's)."""
    if not candidate:
        return "(the root)"
    folder, _, base = candidate.rpartition("/")
    if name and name != base:
        return f"{name} (folder {candidate}/)"
    return f"{base} (from {folder}/)" if folder else base


def _matches(candidates: Sequence[str], wanted: str, names: Mapping[str, str]) -> list[str]:
    """The candidates ``wanted`` names: its exact path, else every one whose folder's name or
    frontmatter name it is."""
    if wanted in candidates:
        return [wanted]
    return [c for c in candidates if wanted in (c.rsplit("/", 1)[-1], names.get(c))]


def _by_name(candidates: Sequence[str], nested: Sequence[str], wanted: str,
             names: Mapping[str, str]) -> str | None:
    """The one skill ``wanted`` names (a skill of the tree before a nested one)."""
    for pool in (candidates, nested):
        found = _matches(pool, wanted, names)
        if len(found) > 1:
            listed = ", ".join(label(c, names.get(c)) for c in found)
            raise UsageError(f"{wanted!r} names {len(found)} skills of the fetched tree "
                             f"({listed}); name one by its path, e.g. --skill {found[0]}")
        if found:
            return found[0]
    return None


def choose(candidates: Sequence[str], *, skills: Sequence[str] = (), all_skills: bool = False,
           select: Selector | None = None, names: Mapping[str, str] | None = None,
           nested: Mapping[str, str] | None = None) -> list[str]:
    """The candidates to install, in order. ``names``: each folder's frontmatter name (where
    known); ``nested``: the nested skills (:func:`find_nested`), chosen only when named.

    :raises ChoiceNeeded: or a UsageError."""
    if not candidates:
        raise LemonError("the fetched tree holds no SKILL.md; check the identifier (a "
                         "subdirectory can be named with #subdirectory=PATH)")
    names = names or {}
    listed = ", ".join(label(c, names.get(c)) for c in candidates)
    if skills:
        chosen = []
        for wanted in skills:
            match = _by_name(candidates, list(nested or ()), wanted, names)
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
    shown = " ".join(f"--skill {names.get(c) or c.rsplit('/', 1)[-1]}" for c in candidates[:3])
    raise ChoiceNeeded(f"the fetched tree holds {len(candidates)} skills: {listed}; choose "
                       f"with --skill NAME (e.g. {shown}) or take them all with --all",
                       candidates)


def skill_names(tree: Path, folders: Sequence[str]) -> dict[str, str]:
    """Each folder's frontmatter ``name`` as install reads it (folders whose SKILL.md does not
    give one are left out)."""
    from lemon_core.manifest.lenient import load_for_install

    names = {}
    for folder in folders:
        result, _ = load_for_install(tree / folder / SKILL_FILE if folder else tree / SKILL_FILE,
                                     key=folder.rsplit("/", 1)[-1] or "skill")
        if result.manifest is not None and result.manifest.name:
            names[folder] = result.manifest.name
    return names


__all__ = ["SKILL_FILE", "SKIPPED", "ChoiceNeeded", "Selector", "choose", "find_nested",
           "find_skills", "label", "skill_names"]
