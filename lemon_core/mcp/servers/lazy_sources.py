"""Where ``lazy-skills-mcp`` reads skills from, as its interface contract fixes it.

The sources are taken from the first of these that names any (a level never merges with a
lower one):

1. every ``--skills-dir`` argument, in order;
2. ``LAZY_SKILLS_MCP_SKILLS_DIR``, a list separated like ``PATH`` (:data:`os.pathsep`);
3. ``$XDG_DATA_HOME/lazy-skills-mcp/skills`` when ``XDG_DATA_HOME`` is an absolute path;
4. ``~/.local/share/lazy-skills-mcp/skills``.

Empty values are ignored and a leading ``~`` is expanded in every path the flags and the
variable give (agents start MCP servers without a shell). Skip folders
(``--skip-installed-in``) get the same treatment and have no default.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

ENV_VAR = "LAZY_SKILLS_MCP_SKILLS_DIR"
APP_DIR = ("lazy-skills-mcp", "skills")


def expand(path: str, env: Mapping[str, str]) -> str:
    """``path`` with a leading ``~`` (or ``~user``) expanded, made absolute."""
    if path.startswith("~"):
        head, sep, rest = path.partition("/")
        if head == "~":
            home = env.get("HOME") or os.path.expanduser("~")
            path = home + sep + rest
        else:
            path = os.path.expanduser(path)
    return os.path.abspath(path)


def _given(values: Iterable[str], env: Mapping[str, str]) -> list[str]:
    return [expand(value, env) for value in values if value]


def resolve_sources(skills_dirs: Iterable[str], env: Mapping[str, str]) -> list[str]:
    """The source folders, in priority order (see the module docstring)."""
    given = _given(skills_dirs, env)
    if given:
        return given
    listed = _given(env.get(ENV_VAR, "").split(os.pathsep), env)
    if listed:
        return listed
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return [os.path.join(xdg, *APP_DIR)]
    return [expand(os.path.join("~", ".local", "share", *APP_DIR), env)]


def resolve_skip_dirs(skip_dirs: Iterable[str], env: Mapping[str, str]) -> list[str]:
    """The ``--skip-installed-in`` folders, expanded (no default)."""
    return _given(skip_dirs, env)


__all__ = ["APP_DIR", "ENV_VAR", "expand", "resolve_skip_dirs", "resolve_sources"]
