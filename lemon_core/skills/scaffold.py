"""``lemon skill new NAME``: a new skill folder whose SKILL.md passes ``lemon skill lint`` and
``lemon skill lint --standard`` as written (as ``skills init`` of Vercel's ``skills`` CLI writes
one), for its author to fill in.

The folder goes into lemon's global skills folder (``<agent dir>/skill/NAME``), the project's
(``.lemon/skill/NAME``, reached beneath the project without following a link) or a folder the
caller names. It is created exclusively: an existing folder, file or link of that name is
refused and left as it is. SKILL.md is written atomically; a failure removes the new folder.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from lemon_core.context import LemonContext
from lemon_core.errors import LemonError, UsageError
from lemon_core.skills.calls import call_context

MAX_NAME = 64
#: The Agent Skills standard's portable name: a-z, 0-9 and single inner hyphens.
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*", re.ASCII)
NAME_RULE = (f"a skill name is 1 to {MAX_NAME} of a-z, 0-9 and single hyphens between them "
             "(e.g. pdf-forms), as the Agent Skills standard requires")

TEMPLATE = """\
---
name: {name}
description: Replace this description with what {name} does and when an agent should use it, \
starting with Use when; agents read only this line to decide whether to load the skill.
---

# {name}

Replace this text with the instructions an agent follows once it has loaded the skill.

## When to use

- Replace with the requests or situations this skill is for.

## Steps

1. Replace with the first step (a command to run, a file to read, a check to make).
2. Say what a good result looks like, so the agent knows when it is done.
"""


class SkillExists(LemonError):
    """Something is already at the new skill's folder; nothing was changed."""


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a new skill's name (:data:`NAME_RULE`), or None."""
    if len(name) > MAX_NAME:
        return f"it is {len(name)} characters long"
    if not _NAME.fullmatch(name):
        return "it holds a character other than a-z, 0-9 and -, or a hyphen at an end or doubled"
    return None


def skill_text(name: str) -> str:
    """The SKILL.md a new skill named ``name`` starts with."""
    return TEMPLATE.format(name=name)


def new_skill(name: str, ctx: LemonContext | None = None, *, local: bool = False,
              path: str | Path | None = None, cwd: str | Path | None = None) -> Path:
    """Create the skill folder ``name`` with its SKILL.md and return the folder: in lemon's
    global skills folder, the project's with ``local``, or in the folder ``path`` (relative to
    the project directory).

    :raises UsageError: ``name`` breaks :data:`NAME_RULE`, or ``local`` from the home folder.
    :raises SkillExists: something is already at the folder (it is left as it is).
    """
    problem = name_problem(name)
    if problem:
        raise UsageError(f"'{name}' is not a skill name: {problem}; {NAME_RULE}")
    ctx = call_context(ctx, cwd)
    root: Path | None = None
    if path is not None:
        parent = ctx.expand_path(str(path), base=ctx.cwd)
    else:
        from lemon_core.install.targets import scope_for

        scope = scope_for(ctx, local=local)
        parent, root = scope.skills_dir, scope.root
    folder = parent / name
    _make_folder(folder, root)
    try:
        from lemon_core.fsio.write import atomic_write_bytes

        atomic_write_bytes(folder / "SKILL.md", skill_text(name).encode(), mode=0o644,
                           root=root)
    except BaseException:
        with contextlib.suppress(OSError):
            (folder / "SKILL.md").unlink(missing_ok=True)
            folder.rmdir()
        raise
    return folder


def _make_folder(folder: Path, root: Path | None) -> None:
    """Make ``folder`` (its parents too), refusing whatever is already there."""
    try:
        if root is None:
            folder.parent.mkdir(parents=True, exist_ok=True)
            os.mkdir(folder)
            return
        from lemon_core.fsio import beneath

        with beneath.parent_of(root, folder, create=True) as fd:
            os.mkdir(folder.name if fd is not None else folder, dir_fd=fd)
    except FileExistsError:
        raise SkillExists(f"{folder} already exists; nothing was changed (choose another "
                          f"name, or move it away first)") from None


__all__ = ["MAX_NAME", "NAME_RULE", "SkillExists", "name_problem", "new_skill", "skill_text"]
