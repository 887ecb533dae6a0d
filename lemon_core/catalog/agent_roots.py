"""The agent roots a skill can be placed in (``lemon skill install --agent NAME``).

The names are the ids of the roots lemon already discovers (:mod:`lemon_core.catalog.roots`):

- ``agents``: ``.agents/skills`` in the project, ``~/.agents/skills`` globally (read by Codex,
  Copilot, OpenCode, Gemini CLI, Cursor…);
- ``claude``: ``.claude/skills``, ``~/.claude/skills``;
- ``codex``: ``.codex/skills``, ``~/.codex/skills``;
- ``omp``: ``.omp/skills``, ``~/.omp/agent/skills``;
- ``github``: ``.github/skills``, in a project only (there is no global one).

A project root is the one in the working directory (where ``.lemon`` is); a global root
honours its ``LEMON_*_SKILLS_DIR`` override, as discovery does, and is otherwise below home.
"""

from __future__ import annotations

from pathlib import Path

from lemon_core.catalog.roots import PROJECT_SKILL_DIRS
from lemon_core.context import GLOBAL_SKILL_ROOTS, LemonContext
from lemon_core.errors import LemonError, UsageError

#: Every agent name ``--agent`` takes, in the order discovery reads their roots.
AGENT_NAMES: tuple[str, ...] = tuple(root_id for root_id, _ in PROJECT_SKILL_DIRS)
#: The agents that have a project root only.
PROJECT_ONLY: tuple[str, ...] = tuple(
    name for name in AGENT_NAMES if name not in {r for r, _, _ in GLOBAL_SKILL_ROOTS})


def check_agent(name: str, *, local: bool) -> str:
    """``name`` if it names an agent root of this scope.

    :raises UsageError: an unknown name (listing the valid ones), or a project-only agent
        without ``local``.
    """
    if name not in AGENT_NAMES:
        raise UsageError(f"unknown agent {name!r}; use one of {', '.join(AGENT_NAMES)}")
    if name in PROJECT_ONLY and not local:
        raise UsageError(f"the {name} agent reads skills only in a project "
                         f"(.{name}/skills); add --local to place the skill there")
    return name


def agent_root(ctx: LemonContext, name: str, *, local: bool) -> Path:
    """The folder the agent ``name`` reads skills from, in the project (``local``: below the
    working directory) or globally.

    :raises UsageError: see :func:`check_agent`.
    :raises LemonError: a global root below a home that cannot be used.
    """
    check_agent(name, local=local)
    if local:
        parts = dict(PROJECT_SKILL_DIRS)[name]
        return ctx.cwd.joinpath(*parts)
    override, below_home = next((o, b) for r, o, b in GLOBAL_SKILL_ROOTS if r == name)
    value = ctx.getenv(override)
    if value and not (value.startswith("~") and ctx.home_problem is not None):
        return ctx.expand_path(value)
    if ctx.home_problem is not None or below_home is None:
        raise LemonError(f"the home directory {ctx.home} {ctx.home_problem}, so there is no "
                         f"global {name} skills folder; set HOME (or {override}) to an "
                         f"existing absolute folder, or place the skill in a project with "
                         f"--local")
    return ctx.home.joinpath(*below_home)


__all__ = ["AGENT_NAMES", "PROJECT_ONLY", "agent_root", "check_agent"]
