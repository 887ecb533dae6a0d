"""Where skills are looked for, in precedence order.

Project roots: ``.lemon/skill`` in the working directory, then ``.agents/skills``,
``.omp/skills``, ``.claude/skills``, ``.codex/skills`` and ``.github/skills`` in each directory
from the working directory up to the repository root (nearest first; a ``.git`` directory or
file marks the root; without a repository only the working directory; the home directory is
never a project directory). Global roots: ``<agent dir>/skill``, ``~/.agents/skills``,
``~/.omp/agent/skills``, ``~/.claude/skills``, ``~/.codex/skills``, each replaceable by its
``LEMON_*_SKILLS_DIR`` variable; with ``LEMON_AGENT_DIR`` or any override set, the global roots
that are not named are not read (isolation). The skills shipped inside lemon
(:mod:`lemon_core.builtin_skills`) are a last global root, below every other, unless
``LEMON_BUILTIN_SKILLS=0`` (they are lemon's own files, so the isolation above leaves them in).

A project root is the project's only while it is reached without a link leading out of the
project: each project root carries ``within`` (the topmost project directory searched), and the
walk reports a root reached through a link whose real path leaves it (``.lemon/skill ->
~/.claude/skills``) as ``root_outside_project`` instead of listing the user's own skills as
project skills (:mod:`lemon_core.catalog.walk`). A link inside a root to one skill folder
elsewhere (``.agents/skills/tool -> ~/checkouts/tool``) is the user linking a skill in, and
stays listed.

Every one of these is an agent root and has the ``flat`` layout, as the agents read them: a
skill is a direct child folder holding ``SKILL.md`` (see :mod:`lemon_core.catalog.walk`). A root
made for a checkout (``lint`` of a folder; later the lazy server's ``--skills-dir`` and install
from a repository) is built with ``layout="grouped"``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from lemon_core.context import GLOBAL_SKILL_ROOTS, LemonContext

if TYPE_CHECKING:
    from lemon_core.models import Diagnostic

#: Per-directory project roots, in precedence order: (root id, path below the directory).
PROJECT_SKILL_DIRS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("agents", (".agents", "skills")),
    ("omp", (".omp", "skills")),
    ("claude", (".claude", "skills")),
    ("codex", (".codex", "skills")),
    ("github", (".github", "skills")),
)
LEMON_PROJECT_DIR = ("lemon", (".lemon", "skill"))


#: The two layouts of a root (see :mod:`lemon_core.catalog.walk`).
FLAT = "flat"
GROUPED = "grouped"
Layout = Literal["flat", "grouped"]


@attrs.frozen
class SkillRoot:
    """A folder that holds skills. Earlier roots in a list win a key over later ones.

    ``layout`` is ``"flat"`` for the agent roots (skills are direct children) and ``"grouped"``
    for checkouts (folders without ``SKILL.md`` are groups, searched below).
    """

    path: Path
    scope: Literal["project", "global"]
    id: str
    layout: Layout = FLAT
    #: For a project root, the project directory it must be reached within (no link on the
    #: way leads out of it); None: not checked.
    within: Path | None = None


def find_repo_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (itself included) holding ``.git`` (dir or file)."""
    for directory in (start, *start.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return None


def project_dirs(ctx: LemonContext) -> list[Path]:
    """The directories searched for project roots: cwd up to the repo root, home excluded.

    Home is recognised by path and by identity (device and inode), so a home reached through
    a symbolic link (``$HOME=/home/me`` with ``/home`` a link) is still never a project.
    """
    cwd = ctx.cwd
    repo = find_repo_root(cwd)
    chain = [cwd]
    if repo is not None and repo != cwd:
        for parent in cwd.parents:
            chain.append(parent)
            if parent == repo:
                break
    home = ctx.home
    home_id = _identity(home)
    return [d for d in chain if d != home and (home_id is None or _identity(d) != home_id)]


def is_project_dir(ctx: LemonContext) -> bool:
    """Whether the working directory can hold project state (it is not the home directory)."""
    return ctx.cwd in project_dirs(ctx)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def project_roots(ctx: LemonContext) -> list[SkillRoot]:
    dirs = project_dirs(ctx)
    roots: list[SkillRoot] = []
    top = dirs[-1] if dirs else None  # the repository root (or cwd): what "the project" is
    if ctx.cwd in dirs:
        root_id, parts = LEMON_PROJECT_DIR
        roots.append(SkillRoot(ctx.cwd.joinpath(*parts), "project", root_id, within=top))
    for directory in dirs:
        for root_id, parts in PROJECT_SKILL_DIRS:
            roots.append(SkillRoot(directory.joinpath(*parts), "project", root_id, within=top))
    return roots


def world_writable_warning(ctx: LemonContext) -> Diagnostic | None:
    """A warning when the project's ``.lemon`` is a folder every user may write (without the
    sticky bit): anyone on the machine could plant skills or links in it. Checked on every
    listing (one ``lstat``), so a ``chmod`` clears it at once."""
    lemon_dir = ctx.project_lemon_dir
    try:
        info = os.lstat(lemon_dir)
    except (OSError, ValueError):
        return None
    if not stat.S_ISDIR(info.st_mode) or not info.st_mode & 0o002 or info.st_mode & stat.S_ISVTX:
        return None
    from lemon_core.models import Diagnostic

    return Diagnostic(str(lemon_dir), "warning", "world_writable",
                      "every user of this machine can write this folder, so anyone could "
                      "plant skills or links in it; run 'chmod o-w' on it")


def global_roots(ctx: LemonContext) -> list[SkillRoot]:
    isolated = ctx.is_isolated
    agent_dir_set = ctx.getenv("LEMON_AGENT_DIR") is not None
    home_unusable = ctx.home_problem is not None  # then nothing below home is a root
    roots: list[SkillRoot] = []
    for root_id, override, below_home in GLOBAL_SKILL_ROOTS:
        value = ctx.getenv(override)
        if value and value.startswith("~") and home_unusable:
            continue
        if value:
            path = ctx.expand_path(value)
        elif below_home is None:  # lemon's own root follows the agent dir
            agent_dir = ctx.usable_agent_dir
            if (isolated and not agent_dir_set) or agent_dir is None:
                continue
            path = agent_dir / "skill"
        elif isolated or home_unusable:
            continue
        else:
            path = ctx.home.joinpath(*below_home)
        roots.append(SkillRoot(path, "global", root_id))
    builtin = builtin_root(ctx)
    if builtin is not None:
        roots.append(builtin)
    return roots


def builtin_root(ctx: LemonContext) -> SkillRoot | None:
    """The skills shipped inside lemon (:mod:`lemon_core.builtin_skills`), below every other
    root, unless ``LEMON_BUILTIN_SKILLS=0``. Any skill of the same key elsewhere wins; a copy
    installed with ``lemon skill install builtin:<name>`` carries a lockfile record."""
    if ctx.flag("LEMON_BUILTIN_SKILLS") is False:
        return None
    from lemon_core.builtin_skills import FOLDER

    return SkillRoot(FOLDER, "global", "builtin")


def skill_roots(
    ctx: LemonContext, *, project: bool = True, global_: bool = True
) -> list[SkillRoot]:
    """Every root in precedence order (project before global), each path once."""
    candidates = (project_roots(ctx) if project else []) + (global_roots(ctx) if global_ else [])
    seen: set[Path] = set()
    unique: list[SkillRoot] = []
    for root in candidates:
        if root.path not in seen:
            seen.add(root.path)
            unique.append(root)
    return unique


__all__ = [
    "FLAT",
    "GROUPED",
    "PROJECT_SKILL_DIRS",
    "Layout",
    "SkillRoot",
    "builtin_root",
    "find_repo_root",
    "global_roots",
    "is_project_dir",
    "project_dirs",
    "project_roots",
    "skill_roots",
    "world_writable_warning",
]
