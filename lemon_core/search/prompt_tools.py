"""Which tools the prompt listing tells the model to call: the tools of the server (or the
library) it is written for, under that harness' own names.

A :class:`PromptTools` names three roles, each a tool name or None (not offered):

- ``find``: search the skills by a query (``find_skills(query)``);
- ``load``: a skill's whole SKILL.md by name (``load_skill(name)``);
- ``read``: a skill by key in a view: full, summary, section or file (``read_skill(key)``);
- ``write``: record a lesson as a skill (``skill_manage(action, key)``); where it is offered
  the header carries the learning nudge (``nudge``: ``[skills] learning_nudge = false``
  turns it off).

:data:`PRESETS` holds the known harnesses: ``lemon-serve`` (``lemon skill serve`` and
``lemon mcp serve --skills``: find, load, read; ``lemon skill serve`` also write), ``lazy`` (``lazy-skills-mcp``:
find_skills and load_skill) and ``library`` (a harness embedding lemon's Python API:
``find_relevant`` and ``read_skill``). :func:`prompt_tools` applies a harness' own names over a
preset (``find=search_skills,load=open_skill``; ``read=`` with no name drops that role).
"""

from __future__ import annotations

import re

import attrs

from lemon_core.errors import UsageError

ROLES = ("find", "load", "read", "write")
#: What MCP allows in a tool name (and nothing that could break the prompt's text).
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


@attrs.frozen
class PromptTools:
    find: str | None = "find_skills"
    load: str | None = "load_skill"
    read: str | None = "read_skill"
    write: str | None = "skill_manage"
    #: Whether the header tells the model when to record a lesson with ``write``.
    nudge: bool = True

    def names(self) -> tuple[str, ...]:
        """The tool names offered, in role order."""
        return tuple(name for name in (self.find, self.load, self.read, self.write) if name)


PRESETS = {
    "lemon-serve": PromptTools(),
    "lazy": PromptTools(read=None, write=None),
    "library": PromptTools(find="find_relevant", load=None, read="read_skill", write=None),
}
DEFAULT_PRESET = "lemon-serve"


def prompt_tools(preset: str = DEFAULT_PRESET, names: str | None = None) -> PromptTools:
    """The tools of harness ``preset`` (one of :data:`PRESETS`), renamed by ``names``:
    comma-separated ``ROLE=NAME`` pairs, ROLE one of find, load, read; an empty NAME drops
    the role, a role the preset lacks is added. Raises :class:`UsageError` for an unknown
    preset or role, a malformed name, or a result with no tool to load a skill."""
    if preset not in PRESETS:
        raise UsageError(f"unknown tool set {preset!r}; use one of {', '.join(PRESETS)}")
    chosen = {role: getattr(PRESETS[preset], role) for role in ROLES}
    for pair in (names or "").split(","):
        if not pair.strip():
            continue
        role, sep, name = (part.strip() for part in pair.partition("="))
        if not sep or role not in ROLES:
            raise UsageError(f"tool name {pair.strip()!r} is not ROLE=NAME with ROLE one of "
                             f"{', '.join(ROLES)} (e.g. find=search_skills,load=open_skill)")
        if name and not _NAME.fullmatch(name):
            raise UsageError(f"tool name {name!r} for {role} may hold only letters, digits, "
                             "'_', '-' and '.' (at most 64)")
        chosen[role] = name or None
    if not chosen["load"] and not chosen["read"]:
        raise UsageError("the prompt needs a tool that loads a skill: give load=NAME or "
                         "read=NAME")
    return PromptTools(**chosen)


__all__ = ["DEFAULT_PRESET", "PRESETS", "ROLES", "PromptTools", "prompt_tools"]
