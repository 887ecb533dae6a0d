"""Where an install goes: the scope's skills folder, its lockfile, and the skill's folder.

Global: lemon's own global root (``$LEMON_AGENT_SKILLS_DIR``, else ``<agent dir>/skill``) and
``<agent dir>/skills.lock.json``. Project (``--local``): ``<cwd>/.lemon/skill`` and
``<cwd>/.lemon/skills.lock.json``. The skill itself is always stored here; placing it in an
agent's root as well (``--agent``) is :mod:`lemon_core.install.agent_targets`.

A project scope carries its ``root`` (the working directory): every write, rename and delete
in it is reached beneath that root without following a link (:mod:`lemon_core.fsio.beneath`),
and :meth:`Scope.guard` refuses a planted ``.lemon`` or ``.lemon/skill`` link before anything
is fetched or asked. The global scope (``root`` None) is the user's own: a dotfile link there is
followed.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from lemon_core.catalog.keys import key_problem
from lemon_core.catalog.roots import is_project_dir
from lemon_core.context import LemonContext
from lemon_core.errors import LemonError, UsageError
from lemon_core.fsio.names import skill_key_problem
from lemon_core.state.lockfile import lockfile_path


@attrs.frozen
class Scope:
    """``name`` is ``global`` or ``project``; ``skills_dir`` holds the skill folders."""

    name: str
    skills_dir: Path
    lockfile: Path
    #: The project root a project scope's paths are reached beneath; None for global.
    root: Path | None = None

    @property
    def local(self) -> bool:
        return self.name == "project"

    def target(self, key: str) -> Path:
        return self.skills_dir / key

    def guard(self) -> None:
        """Refuse (:class:`~lemon_core.errors.PlantedLinkError`) a project scope whose skills
        folder or lockfile is reached through a symbolic link (``.lemon -> elsewhere``,
        ``.lemon/skill -> ~/.claude/skills``); the global scope is not checked."""
        if self.root is None:
            return
        from lemon_core.fsio import beneath

        beneath.check(self.root, self.skills_dir)
        beneath.check(self.root, self.lockfile)


def scope_for(ctx: LemonContext, *, local: bool) -> Scope:
    """The scope an install or removal writes to.

    :raises UsageError: ``local`` from the home directory (never a project).
    :raises LemonError: a global install under an unusable home.
    """
    if local:
        if not is_project_dir(ctx):
            raise UsageError(f"{ctx.cwd} is the home directory, which is never a project; run "
                             f"from a project to use --local, or leave it out to install "
                             f"globally")
        return Scope("project", ctx.project_lemon_dir / "skill", lockfile_path(ctx, local=True),
                     root=ctx.cwd)
    agent_dir = ctx.usable_agent_dir
    if agent_dir is None:
        raise LemonError(f"the home directory {ctx.home} {ctx.home_problem}, so there is no "
                         f"global skills folder; set HOME (or LEMON_AGENT_DIR) to an existing "
                         f"absolute folder, or install into a project with --local")
    override = ctx.getenv("LEMON_AGENT_SKILLS_DIR")
    skills_dir = ctx.expand_path(override) if override else agent_dir / "skill"
    return Scope("global", skills_dir, lockfile_path(ctx, local=False))


def folder_name_problem(key: str) -> str | None:
    """Why ``key`` cannot be a skill folder's name (``it ...``), or None."""
    if not key:
        return "is empty"
    if "/" in key or "\\" in key or "\0" in key:
        return "holds a path separator"
    if key in (".", "..") or key.startswith("."):
        return "starts with a dot (a hidden folder is never a skill)"
    return key_problem(key)


def check_key(key: str, what: str = "skill name", *, new: bool = False) -> str:
    """``key`` if it can be a skill folder's name; else a :class:`UsageError` saying why.
    ``new``: a folder lemon is about to create, held to the portable-name rule
    (:func:`~lemon_core.fsio.names.skill_key_problem`: at most 64 characters, nothing Windows
    or macOS would read as another name); an existing folder (remove, update) only needs to
    be one lemon can list."""
    problem = folder_name_problem(key)
    if problem is None and new:
        problem = skill_key_problem(key)
    if problem is not None:
        raise UsageError(f"the {what} {key!r} cannot be a skill folder's name: it {problem}")
    return key


__all__ = ["Scope", "check_key", "folder_name_problem", "scope_for"]
